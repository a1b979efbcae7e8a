// The bin's entry when running from source (bin/sluice.js spawns it under tsx): calls `main` once.
import { main } from './main.js';

process.exit(await main(process.argv.slice(2)));
