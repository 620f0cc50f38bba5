import BridgeProtocol
import BridgeStore
import Foundation
import Logging

/// Exactly-once requests: a client that retries a request with the same `id` (typically after a reconnect,
/// not knowing whether the first attempt arrived) gets the first answer again instead of a second action.
///
/// Applies to clients the bridge can recognise (paired devices; shared-secret clients that send
/// `hello.clientId`) and to the kinds whose ``RequestDescriptor/exactlyOnce`` says so (the requests that act).
/// Answers are kept ``JournalRetention/answerMaxAge`` (default 1 h). A retry that arrives while the first
/// attempt still runs waits for its answer. The first attempt runs to its end even if its connection closes.
/// A `codex_unavailable` answer is not kept (nothing was done; the retry may act).
extension ThreadHub {
    func answerOnce(_ request: BridgeRequest, id: String, key: String, session: ClientSession) async -> ServerMessage {
        let slot = key + "\u{0}" + id
        if work.inflight[slot] != nil {
            let answer = await withCheckedContinuation { continuation in
                work.inflight[slot, default: []].append(continuation)
            }
            await adopt(answer, by: session)
            return answer
        }
        work.inflight[slot] = []
        // Unstructured: the first attempt runs to its end (and its answer is stored) even if its connection,
        // and with it the request's task, ends meanwhile.
        let answer = await Task { await self.firstAnswer(request, id: id, key: key, session: session) }.value
        for waiter in work.inflight.removeValue(forKey: slot) ?? [] {
            waiter.resume(returning: answer)
        }
        return answer
    }

    /// A retry answered with the first answer: a retried `startThread` subscribes the retrying session too, as
    /// the first attempt subscribed its own.
    func adopt(_ answer: ServerMessage, by session: ClientSession) async {
        let threadId: String
        switch answer {
        case .response(_, .threadStarted(let started)): threadId = started.threadId
        case .response(_, .threadForked(let forked)): threadId = forked.threadId
        default: return
        }
        guard sessions[session.id] != nil else { return }
        subscribe(session, to: threadId)
        await remember(session, subscribedTo: threadId, true)
    }

    private func firstAnswer(_ request: BridgeRequest, id: String, key: String, session: ClientSession) async -> ServerMessage {
        do {
            if let stored = try await storage.memory.answer(to: id, from: key, maxAge: storage.retention.answerMaxAge) {
                guard stored.kind == request.kind else {
                    return .error(ErrorMessage(id: id, code: .badRequest, message: "request id \(id) was already used for \(stored.kind)"))
                }
                session.logger.info(
                    "Retried request answered again", metadata: ["bridge.request.id": "\(id)", "bridge.request.kind": "\(request.kind)"])
                let answer = try ServerMessage.decode(Data(stored.answer.utf8))
                await adopt(answer, by: session)
                return answer
            }
        } catch {
            session.logger.warning("Cannot read a stored answer", metadata: ["error": "\(error)"])
        }
        let answer = await perform(request, id: id, session: session)
        if case .error(let error) = answer, error.code == .codexUnavailable { return answer }
        do {
            let text = String(decoding: try answer.encoded(encoder: encoder), as: UTF8.self)
            try await storage.memory.storeAnswer(text, kind: request.kind, to: id, from: key)
        } catch {
            session.logger.warning("Cannot store an answer", metadata: ["error": "\(error)"])
        }
        return answer
    }
}
