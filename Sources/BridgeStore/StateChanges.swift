import Foundation
import Synchronization

/// Tells the parts of a running `serve` that another process changed its state: a CLI's write to the database
/// (`devices allow`, `devices revoke`, `machines add`, a scope asked or decided) or a rotated shared secret. Those
/// parts wait here instead of re-reading SQLite every second (issue 45 item 4): an idle bridge then wakes for
/// nothing.
///
/// A generation counter: ``changed()`` bumps it and wakes every waiter; a waiter passes the generation it has
/// seen and returns at once if it is already behind, so no change falls between a look and the next wait.
/// Who bumps it: ``BridgeDatabase/writeImmediate(_:)`` after this process's writes, and serve's
/// `StateDirectoryWatch` for other processes' (inotify on the state directory, then the database's `data_version`).
public final class StateChanges: Sendable {
    private struct Waiter {
        let id: UInt64
        let continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var generation: UInt64 = 0
        var nextWaiter: UInt64 = 0
        var waiters: [Waiter] = []
    }

    private let state = Mutex(State())
    /// When set, the signal also fires on its own every `interval`: see ``every(_:)``.
    public let interval: Duration?

    /// A signal bumped only by ``changed()``.
    public init() { interval = nil }

    private init(interval: Duration) { self.interval = interval }

    /// A signal that also fires every `interval` by itself: for watchers given no database (tests of their
    /// checks that drive them at a fixed pace).
    public static func every(_ interval: Duration) -> StateChanges { StateChanges(interval: interval) }

    /// The current generation: pass it to ``wait(after:until:)``.
    public var generation: UInt64 { state.withLock { $0.generation } }

    /// Something changed: every waiter wakes.
    public func changed() {
        let woken = state.withLock { state -> [Waiter] in
            state.generation &+= 1
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in woken { waiter.continuation.resume() }
    }

    /// Waits until the generation moves past `seen`, `deadline` passes (nil: no deadline), the signal's own
    /// interval passes, or the task is cancelled; returns the generation then.
    @discardableResult
    public func wait(after seen: UInt64, until deadline: ContinuousClock.Instant? = nil) async -> UInt64 {
        var deadline = deadline
        if let interval {
            let tick = ContinuousClock.now.advanced(by: interval)
            deadline = deadline.map { min($0, tick) } ?? tick
        }
        guard let deadline else {
            await waitForChange(after: seen)
            return generation
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.waitForChange(after: seen) }
            group.addTask { try? await Task.sleep(until: deadline, clock: .continuous) }
            await group.next()
            group.cancelAll()
        }
        return generation
    }

    /// Returns once the generation is past `seen`, or the task is cancelled.
    private func waitForChange(after seen: UInt64) async {
        let id = state.withLock { state -> UInt64 in
            state.nextWaiter &+= 1
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if state.generation != seen || Task.isCancelled { return true }
                    state.waiters.append(Waiter(id: id, continuation: continuation))
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index)
            }
            waiter?.continuation.resume()
        }
    }
}
