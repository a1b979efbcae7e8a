// `npm start`: the demo on the embedded default (SQLite under .sluice/, embedded runtime, local
// blobs), gateway and worker in one process.
import { main } from '@sluice/cli';

process.exitCode = await main(['dev']);
