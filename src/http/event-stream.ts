// What an open push stream hands out, and how it fails; opened by open-event-stream.ts.

/** One server-sent event (WHATWG HTML §9.2): its type and joined data lines. */
export interface StreamEvent {
  event: string;
  data: string;
}

type EventStreamFailureKind =
  | 'status'
  | 'not_event_stream'
  | 'connect_timeout'
  | 'idle'
  | 'event_too_large'
  | 'total_too_large'
  | 'ended'
  | 'network'
  | 'cancelled'
  | 'redirect_refused';

/** Why a stream could not be opened or stopped delivering: the caller falls back, it never hangs. */
export class EventStreamFailure extends Error {
  constructor(
    readonly kind: EventStreamFailureKind,
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

export interface EventStream {
  /** The next event; rejects with EventStreamFailure when the stream is dead, too big, ended or cancelled. */
  next(): Promise<StreamEvent>;
  close(): void;
}
