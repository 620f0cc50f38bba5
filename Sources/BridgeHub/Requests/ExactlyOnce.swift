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
/// is a job of the hub's own (``BackgroundJobs``), not of the request's task. A `codex_unavailable` or
/// `machine_unavailable` answer is not kept (nothing was done here; the retry may act).
final class ExactlyOnce: Sendable {
    private let memory: ClientMemory
    private let auditor: Auditor
    private let maxAge: TimeInterval
    private let jobs: BackgroundJobs
    /// Requests (client key + id) being answered, with who waits for the answer (the first caller and retries).
    private let inflight = Mutex<[String: [CheckedContinuation<Outcome, Never>]]>([:])
    /// Answers' writes begun and not yet committed, and who waits for them (``settled()``).
    private let writes = Mutex(Writes())

    /// An answer, and whether its audit entry was written with its stored copy (a first attempt that acted).
    struct Outcome: Sendable {
        var answer: ServerMessage
        var audited = false
    }

    private struct Writes {
        var next: UInt64 = 0
        var open: Set<UInt64> = []
        var waiters: [(through: UInt64, continuation: CheckedContinuation<Void, Never>)] = []
    }

    init(memory: ClientMemory, auditor: Auditor, maxAge: TimeInterval, jobs: BackgroundJobs) {
        self.memory = memory
        self.auditor = auditor
        self.maxAge = maxAge
        self.jobs = jobs
    }

    /// The answer to request `id` of client `key`: the stored one, the running first attempt's, or `perform`'s.
    /// `perform`'s answer goes out at once; its stored copy and (for an audited kind) its audit entry are written
    /// after it, in one transaction, while a retry arriving meanwhile still waits for the first attempt (so it
    /// gets the stored answer, never a second action). `adopt` is given an answer this session gets again (a
    /// retry of an earlier attempt).
    func answer(
        _ request: BridgeRequest, id: String, key: String, session: ClientSession,
        perform: @escaping @Sendable () async -> ServerMessage, adopt: @escaping @Sendable (ServerMessage) async -> Void
    ) async -> Outcome {
        let slot = key + "\u{0}" + id
        var isFirst = false
        let outcome = await withCheckedContinuation { continuation in
            // One step under the lock: an attempt that ends meanwhile cannot leave this one waiting for nobody.
            isFirst = inflight.withLock { table in
                let first = table[slot] == nil
                table[slot, default: []].append(continuation)
                return first
            }
            guard isFirst else { return }
            let started = jobs.start {
                guard
                    let performed = await self.firstAnswer(
                        request, id: id, key: key, slot: slot, session: session, perform: perform, adopt: adopt)
                else { return }
                self.finish(slot, with: Outcome(answer: performed))
            }
            // The hub has stopped: nothing can act now (not kept, so a retry may).
            if !started {
                finish(
                    slot,
                    with: Outcome(
                        answer: .error(ErrorMessage(id: id, code: .codexUnavailable, message: "the workstation is shutting down"))))
            }
        }
        if !isFirst {
            await adopt(outcome.answer)
            return Outcome(answer: outcome.answer)
        }
        return outcome
    }

    /// Waits until every answer's write begun before this call has committed (`listAudit` reads after it).
    func settled() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let waiting = writes.withLock { writes in
                guard let through = writes.open.max() else { return false }
                writes.waiters.append((through, continuation))
                return true
            }
            if !waiting { continuation.resume() }
        }
    }

    /// Resumes who waits for `slot`'s answer; the last call (`done`) also ends the slot.
    private func finish(_ slot: String, with outcome: Outcome, done: Bool = true) {
        let waiters = inflight.withLock { table in
            done ? table.removeValue(forKey: slot) : table.updateValue([], forKey: slot)
        }
        for waiter in waiters ?? [] {
            waiter.resume(returning: outcome)
        }
    }

    /// The stored answer (nil: none), else `perform`'s: sent to who waits now, then written with its audit entry
    /// before the slot ends (returns nil then: nothing is left to send).
    private func firstAnswer(
        _ request: BridgeRequest, id: String, key: String, slot: String, session: ClientSession,
        perform: @Sendable () async -> ServerMessage, adopt: @Sendable (ServerMessage) async -> Void
    ) async -> ServerMessage? {
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
        // Nothing was done (Codex or the linked machine was away, or the link was lost before its answer, where the
        // machine keeps its own): a retry must reach it.
        if case .error(let error) = answer, [.codexUnavailable, .machineUnavailable].contains(error.code) { return answer }
        let row: ClientMemory.AnswerRow
        do {
            row = ClientMemory.AnswerRow(
                client: key, requestId: id, kind: request.kind, answer: String(decoding: try answer.encoded(), as: UTF8.self))
        } catch {
            session.logger.warning("Cannot store an answer", metadata: ["error": "\(error)"])
            return answer
        }
        let audited = request.descriptor.audited
        let entry =
            audited
            ? auditor.entry(for: request, answer: answer, deviceId: session.principal.deviceId, address: session.remoteAddress) : nil
        let ticket = writes.withLock { writes in
            writes.next += 1
            writes.open.insert(writes.next)
            return writes.next
        }
        finish(slot, with: Outcome(answer: answer, audited: audited), done: false)
        await auditor.record(entry, keeping: row)
        finish(slot, with: Outcome(answer: answer))
        let ready = writes.withLock { writes in
            writes.open.remove(ticket)
            let oldest = writes.open.min() ?? .max
            let ready = writes.waiters.filter { $0.through < oldest }.map(\.continuation)
            writes.waiters.removeAll { $0.through < oldest }
            return ready
        }
        for waiter in ready { waiter.resume() }
        return nil
    }
}
