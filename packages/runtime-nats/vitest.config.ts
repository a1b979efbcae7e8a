import { sluiceVitest } from '../../vitest.shared.js';

export default sluiceVitest();
