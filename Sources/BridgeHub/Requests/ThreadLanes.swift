import BridgeProtocol
import Synchronization

/// One lane per thread for the requests that change its turns (issue 45 item 1): they run one at a time, in the
/// order they arrived, from the gate to their answer. So a check and its act are one step for every other
/// request on that thread: `revertThread` checks that no turn runs, then waits on Codex, and a `sendMessage` that
/// arrives meanwhile starts its turn after the revert, not in the middle of it (the hub is an actor, and without
/// the lane its `await`s let the message in). Requests on other threads, and reads, never wait here.
///
/// Which kinds take the lane is declared here, by kind: those whose act depends on whether a turn runs or starts
/// one. Long ones that touch no turn (a push, a commit message Codex writes, a `!command`) stay out: a message
/// must not wait behind a slow network.
final class ThreadLanes: Sendable {
    private struct State {
        /// A held lane, with who waits for it in order.
        var held: [String: [CheckedContinuation<Void, Never>]] = [:]
    }

    private let state = Mutex(State())

    /// The lane `request` runs in, if its kind takes one.
    static func lane(of request: BridgeRequest) -> String? {
        guard let threadId = request.threadId, takesLane(request.requestKind) else { return nil }
        return threadId
    }

    static func takesLane(_ kind: RequestKind) -> Bool {
        switch kind {
        case .sendMessage, .interrupt, .revertThread, .compactThread, .deleteThread, .removeWorktree, .updateThreadSettings, .startReview,
            .setGoal, .clearGoal, .cancelQueued, .reorderQueued, .editQueued:
            true
        default:
            false
        }
    }

    /// Returns once `threadId`'s lane is this caller's: at once when it is free, else after everyone before.
    func enter(_ threadId: String) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let free = state.withLock { state -> Bool in
                guard state.held[threadId] != nil else {
                    state.held[threadId] = []
                    return true
                }
                state.held[threadId]!.append(continuation)
                return false
            }
            if free { continuation.resume() }
        }
    }

    /// Hands `threadId`'s lane to the next who waits, or frees it.
    func leave(_ threadId: String) {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard var waiting = state.held[threadId] else { return nil }
            guard !waiting.isEmpty else {
                state.held[threadId] = nil
                return nil
            }
            let next = waiting.removeFirst()
            state.held[threadId] = waiting
            return next
        }
        next?.resume()
    }

    /// How many wait for `threadId`'s lane (tests).
    func waiting(on threadId: String) -> Int { state.withLock { $0.held[threadId]?.count ?? 0 } }
}
