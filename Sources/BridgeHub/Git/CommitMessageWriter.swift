import BridgeGit
import BridgeProtocol
import CodexControl
import Foundation
import Synchronization

/// "Write with Codex" (`gitCommitMessage`): a short request to Codex for a commit message of the thread's
/// uncommitted changes, in an ephemeral Codex thread of the bridge's own — read-only, no approvals, never shown,
/// listed or journaled — not a turn of the user's thread.
///
/// Beside the hub, with its own state: the hub hands it the notifications of its threads (``take(method:params:threadId:)``)
/// and publishes none of them; the request waits here, not in the hub's desks.
final class CommitMessageWriter: Sendable {
    /// An ephemeral thread the bridge started for itself, while it runs.
    private struct EphemeralThread {
        /// The agent's last message so far.
        var message: String?
        var done = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    /// How long Codex may take.
    static let timeout: Duration = .seconds(60)

    private let threads = Mutex<[String: EphemeralThread]>([:])
    /// How many threads run: the event path looks here first (no lock while there are none).
    private let running = Atomic<Int>(0)
    private let codex: any CodexPort
    private let codexTimeout: Duration
    /// Where the timeouts and the unsubscribes run (the hub's, owned by its `run()`).
    private let jobs: BackgroundJobs

    init(codex: any CodexPort, codexTimeout: Duration, jobs: BackgroundJobs) {
        self.codex = codex
        self.codexTimeout = codexTimeout
        self.jobs = jobs
    }

    /// A message for `diff` (the uncommitted changes under `cwd`; nil when `cwd` is not in a repository).
    func write(_ threadId: String, cwd: String, diff: String?) async throws -> CommitMessage {
        guard let diff else {
            throw HubError(.badRequest, "\(cwd) is not inside a git repository")
        }
        guard !diff.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw HubError(.badRequest, "nothing to describe: there are no uncommitted changes under \(cwd)")
        }
        let helper = try await codex.ephemeralReadOnlyThreadStart(cwd: cwd, timeout: codexTimeout)
        change { $0[helper] = EphemeralThread() }
        defer {
            change { $0[helper] = nil }
            jobs.start { [codex] in try? await codex.threadUnsubscribe(threadId: helper) }
        }
        _ = try await codex.turnStart(
            threadId: helper, text: CommitMessageDraft.prompt(for: diff),
            sandbox: "read-only", approvalPolicy: "never", timeout: codexTimeout)
        await waitForEnd(of: helper)
        guard let text = threads.withLock({ $0[helper]?.message }).map(CommitMessageDraft.clean), !text.isEmpty else {
            throw HubError(.codexError, "Codex wrote no commit message (in \(Self.timeout))")
        }
        return CommitMessage(threadId: threadId, message: text)
    }

    /// Whether `threadId` is one of the bridge's own ephemeral threads, running now.
    func isOwn(_ threadId: String) -> Bool {
        running.load(ordering: .acquiring) > 0 && threads.withLock { $0[threadId] != nil }
    }

    /// A notification of one of the bridge's own ephemeral threads: collected, never published. A `thread/started` of
    /// an ephemeral thread (which may come before `thread/start` is answered) is not published either; → whether the
    /// notification was taken.
    func take(_ note: CodexNotification, threadId: String) -> Bool {
        let params = note.params
        guard isOwn(threadId) else {
            return note.kind == .threadStarted && params["thread"]?["ephemeral"]?.boolValue == true && !codex.isShared
        }
        switch note.kind {
        case .itemCompleted where params["item"]?["type"]?.stringValue == "agentMessage":
            change { $0[threadId]?.message = params["item"]?["text"]?.stringValue }
        case .turnCompleted:
            finish(threadId)
        case .error where params["willRetry"]?.boolValue != true:
            finish(threadId)
        default:
            break
        }
        return true
    }

    /// Waits until the ephemeral thread's turn ends, or ``timeout``.
    private func waitForEnd(of threadId: String) async {
        guard threads.withLock({ $0[threadId]?.done == false }) else { return }
        jobs.start {
            try? await Task.sleep(for: Self.timeout)
            self.finish(threadId)
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = threads.withLock { threads in
                guard threads[threadId]?.done == false else { return true }
                threads[threadId]?.waiter = continuation
                return false
            }
            if now { continuation.resume() }
        }
    }

    private func finish(_ threadId: String) {
        let waiter = threads.withLock { threads in
            threads[threadId]?.done = true
            defer { threads[threadId]?.waiter = nil }
            return threads[threadId]?.waiter
        }
        waiter?.resume()
    }

    private func change(_ body: (inout [String: EphemeralThread]) -> Void) {
        threads.withLock { threads in
            body(&threads)
            running.store(threads.count, ordering: .releasing)
        }
    }
}
