import BridgeStore
import Synchronization

/// Each session's replays, one after another, in the order their places were taken (``ReplayLine``), run by
/// whoever asked for them: the hub for a hello's resume, a `subscribe` handler beside the hub for its own. A
/// place is taken in the actor step that captured the replay's seam (so two subscriptions of one session replay
/// in the order they were answered); the replay itself awaits its turn and the journal outside the hub.
final class SessionReplays: Sendable {
    /// A place in a session's line: open at once when the line was free, else when the replay before it ended.
    final class Turn: Sendable {
        private let state: Mutex<(open: Bool, waiter: CheckedContinuation<Void, Never>?)>

        fileprivate init(open: Bool) { state = Mutex((open, nil)) }

        fileprivate func open() {
            let waiter = state.withLock { state in
                state.open = true
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume()
        }

        fileprivate func opened() async {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state in
                    if !state.open { state.waiter = continuation }
                    return state.open
                }
                if now { continuation.resume() }
            }
        }
    }

    private let line = Mutex(ReplayLine<Turn>())
    private let journal: EventJournal

    init(journal: EventJournal) { self.journal = journal }

    /// Takes a place in session `id`'s line (synchronous: call it in the step that captured the seam).
    func enter(_ id: UInt64) -> Turn {
        line.withLock { line in
            if line.begin(id) { return Turn(open: true) }
            let turn = Turn(open: false)
            line.wait(id, turn)
            return turn
        }
    }

    /// Runs `replay` to `session` when its place comes, then hands the line on.
    func run(_ replay: Replay, to session: ClientSession, at turn: Turn) async {
        await turn.opened()
        await replay.send(from: journal, to: session)
        line.withLock { $0.end(session.id) }?.open()
    }
}
