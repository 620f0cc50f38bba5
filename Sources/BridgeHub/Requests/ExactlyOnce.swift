import BridgeProtocol
import BridgeStore
import Foundation
import Logging
import Synchronization

/// Exactly-once requests: a client that retries a request with the same `id` (typically after a reconnect,
/// not knowing whether the first attempt arrived) gets the first answer again instead of a second action.
///
/// Applies to clients the bridge can recognise (paired devices; shared-secret clients that send
/// `hello.clientId`) and to the kinds whose ``RequestDescriptor/exactlyOnce`` says so (the requests that act).
/// Answers are kept ``JournalRetention/answerMaxAge`` (default 1 h). A retry that arrives while the first
/// attempt still runs waits for its answer. The first attempt runs to its end even if its connection closes: it
/// is a job of the hub's own (``BackgroundJobs``), not of the request's task. A `codex_unavailable` answer is
/// not kept (nothing was done; the retry may act).
final class ExactlyOnce: Sendable {
    private let memory: ClientMemory
    private let maxAge: TimeInterval
    private let jobs: BackgroundJobs
    /// Requests (client key + id) being answered, with who waits for the answer (the first caller and retries).
    private let inflight = Mutex<[String: [CheckedContinuation<ServerMessage, Never>]]>([:])

    init(memory: ClientMemory, maxAge: TimeInterval, jobs: BackgroundJobs) {
        self.memory = memory
        self.maxAge = maxAge
        self.jobs = jobs
    }

    /// The answer to request `id` of client `key`: the stored one, the running first attempt's, or `perform`'s
    /// (then stored). `adopt` is given an answer this session gets again (a retry of an earlier attempt).
    func answer(
        _ request: BridgeRequest, id: String, key: String, session: ClientSession,
        perform: @escaping @Sendable () async -> ServerMessage, adopt: @escaping @Sendable (ServerMessage) async -> Void
    ) async -> ServerMessage {
        let slot = key + "\u{0}" + id
        var isFirst = false
        let answer = await withCheckedContinuation { continuation in
            // One step under the lock: an attempt that ends meanwhile cannot leave this one waiting for nobody.
            isFirst = inflight.withLock { table in
                let first = table[slot] == nil
                table[slot, default: []].append(continuation)
                return first
            }
            guard isFirst else { return }
            let started = jobs.start {
                let answer = await self.firstAnswer(request, id: id, key: key, session: session, perform: perform, adopt: adopt)
                self.finish(slot, with: answer)
            }
            // The hub has stopped: nothing can act now (not kept, so a retry may).
            if !started {
                finish(slot, with: .error(ErrorMessage(id: id, code: .codexUnavailable, message: "the workstation is shutting down")))
            }
        }
        if !isFirst { await adopt(answer) }
        return answer
    }

    private func finish(_ slot: String, with answer: ServerMessage) {
        for waiter in inflight.withLock({ $0.removeValue(forKey: slot) }) ?? [] {
            waiter.resume(returning: answer)
        }
    }

    private func firstAnswer(
        _ request: BridgeRequest, id: String, key: String, session: ClientSession,
        perform: @Sendable () async -> ServerMessage, adopt: @Sendable (ServerMessage) async -> Void
    ) async -> ServerMessage {
        do {
            if let stored = try await memory.answer(to: id, from: key, maxAge: maxAge) {
                guard stored.kind == request.kind else {
                    return .error(ErrorMessage(id: id, code: .badRequest, message: "request id \(id) was already used for \(stored.kind)"))
                }
                session.logger.info(
                    "Retried request answered again", metadata: ["bridge.request.id": "\(id)", "bridge.request.kind": "\(request.kind)"])
                let answer = try ServerMessage.decode(Data(stored.answer.utf8))
                await adopt(answer)
                return answer
            }
        } catch {
            session.logger.warning("Cannot read a stored answer", metadata: ["error": "\(error)"])
        }
        let answer = await perform()
        if case .error(let error) = answer, error.code == .codexUnavailable { return answer }
        do {
            let text = String(decoding: try answer.encoded(), as: UTF8.self)
            try await memory.storeAnswer(text, kind: request.kind, to: id, from: key)
        } catch {
            session.logger.warning("Cannot store an answer", metadata: ["error": "\(error)"])
        }
        return answer
    }
}
