// `sluice dev|gateway|worker` in this folder: video.render with the providers at
// SPEECH_PROVIDER_URL / VIDEO_PROVIDER_URL (start them with `npm start`, which runs everything).
import { defineConfig } from '@sluice/cli';
import { createVideoHandlers } from './src/handlers.js';
import { jobs } from './src/jobs.js';
import { optionsFromEnv } from './src/options.js';

export default defineConfig({ jobs, handlers: createVideoHandlers(optionsFromEnv()) });
