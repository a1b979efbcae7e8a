import { sluiceVitest } from '../../vitest.shared.js';

export default sluiceVitest({
  typecheck: { include: ['src/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
});
