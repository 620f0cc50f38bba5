import BridgeClient
import BridgeProtocol
import Synchronization

/// What one link made this bridge hold at most, and why it was closed: read by the tests (issue 44 asks that
/// the bytes a hostile link pins stay under its ``LinkBudget``) and by whoever wants the figures.
public final class LinkMeter: Sendable {
    private struct State {
        var window: InboundWindow?
        var windowPeak = 0
        var pauses = 0
        var waitingPeakBytes = 0
        var waitingPeakCount = 0
        var closedForCause = 0
        var lastProblem: WireError?
    }

    private let state = Mutex(State())

    public init() {}

    /// The most bytes held in the transport's inbound window at once, over every connection so far.
    public var windowPeak: Int { state.withLock { max($0.windowPeak, $0.window?.peak ?? 0) } }
    /// The most bytes and messages that waited in the relay buffer at once.
    public var waitingPeak: (bytes: Int, count: Int) { state.withLock { ($0.waitingPeakBytes, $0.waitingPeakCount) } }
    /// Whether the current connection's reader waits for room now (the link is held back).
    public var isPaused: Bool { state.withLock { $0.window?.isPaused ?? false } }
    /// How many times the link was held back, over every connection so far.
    public var pauses: Int { state.withLock { $0.pauses + ($0.window?.pauses ?? 0) } }
    /// How many times this bridge closed the link for cause, and the last reason.
    public var problems: (count: Int, last: WireError?) { state.withLock { ($0.closedForCause, $0.lastProblem) } }

    func connected(window: InboundWindow?) {
        state.withLock { state in
            state.windowPeak = max(state.windowPeak, state.window?.peak ?? 0)
            state.pauses += state.window?.pauses ?? 0
            state.window = window
        }
    }

    func record(buffer: RelayBuffer) {
        let peak = buffer.peak
        state.withLock { state in
            state.waitingPeakBytes = max(state.waitingPeakBytes, peak.bytes)
            state.waitingPeakCount = max(state.waitingPeakCount, peak.count)
        }
    }

    func closed(for problem: WireError) {
        state.withLock { state in
            state.closedForCause += 1
            state.lastProblem = problem
        }
    }

    /// The reason to show for a client that failed: a bridge that broke the protocol, or sent too much at once.
    static func problem(of error: BridgeClientError) -> WireError? {
        error.code == .protocolViolation ? WireError(code: .badFrame, message: error.message) : nil
    }
}
