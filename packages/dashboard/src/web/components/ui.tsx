// Small shared pieces: a job state badge, a time, an error line.
import type { JobState } from '@sluice/contracts/wire';

export function StateBadge(props: { state: JobState | string }) {
  return <span className={`state state-${props.state}`}>{props.state.replace(/_/g, ' ')}</span>;
}

export function Time(props: { at: string | null | undefined }) {
  if (!props.at) return <span className="muted">—</span>;
  const d = new Date(props.at);
  return (
    <time dateTime={props.at} title={props.at}>
      {d.toLocaleString(undefined, { dateStyle: 'short', timeStyle: 'medium' })}
    </time>
  );
}

export function ErrorLine(props: { error: string }) {
  return props.error ? (
    <p className="error" role="alert">
      {props.error}
    </p>
  ) : null;
}

export const message = (e: unknown) => (e instanceof Error ? e.message : String(e));
