import BridgeProtocol
import CodexControl
import Logging

/// Reads a sub-agent's thread (`thread/read`) for its nickname, role and directory, off the hub: Codex may not
/// have stored the thread yet when its spawn is announced, so it tries a few times, a moment apart.
struct SubAgentLookup: Sendable {
    let codex: any CodexPort
    let timeout: Duration
    let logger: Logger

    /// How often a sub-agent's thread is read before its nickname is given up, and the pause between reads.
    static let attempts = 5
    static let pause: Duration = .milliseconds(300)

    /// The sub-agent's thread as Codex last answered (the first answer naming its nickname or parent); nil when
    /// every read failed.
    func read(_ threadId: String) async -> JSONValue? {
        var found: JSONValue?
        for attempt in 0..<Self.attempts {
            if attempt > 0 { try? await Task.sleep(for: Self.pause) }
            do {
                let thread = try await codex.threadRead(threadId: threadId, includeTurns: false, timeout: timeout)
                found = thread
                if thread["agentNickname"]?.stringValue != nil || thread["parentThreadId"]?.stringValue != nil { break }
            } catch {
                logger.debug("Cannot read a sub-agent's thread", metadata: ["bridge.thread.id": "\(threadId)", "error": "\(error)"])
            }
        }
        return found
    }
}
