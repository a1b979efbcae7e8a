import { defineConfig } from '@sluice/cli';
import { handlers } from './src/handlers.js';
import { jobs } from './src/jobs.js';

export default defineConfig({ jobs, handlers });
