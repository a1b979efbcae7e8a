// A second process that plays a worker on one job: start, three progress events, succeed. The
// gateway learns of these events only through its tailer (LISTEN/NOTIFY or the SQLite poll).
import { openDatabase } from '@sluice/storage';
import { reportProgress, startJob, succeedJob } from './drive.js';

const database = openDatabase({ url: process.env.DB_URL as string, poolSize: 2 });
const id = process.env.JOB_ID as string;
const pause = () => new Promise((r) => setTimeout(r, 20));
const epoch = await startJob(database, id);
for (let done = 1; done <= 3; done++) {
  await pause();
  await reportProgress(database, id, epoch, done);
}
await pause();
await succeedJob(database, id, epoch, { text: 'from another process' });
process.stdout.write('DONE\n');
await database.close();
