import BridgeClient
import BridgeHub
import BridgeProtocol
import Foundation

/// The request layer of a bridge with linked machines: a session that did not ask for the fleet is the hub's
/// alone, exactly as without links. A fleet session's requests go to the machine they are for: `listThreads`
/// merges every machine's threads (a machine offline shows its last known ones), `startThread` and
/// `listDirectory` name a machine, other requests follow their thread, approval or question. Subscriptions are
/// this bridge's own (its journal holds what the links relay), so a phone's resume is what it always was.
///
/// A request for a linked machine passes this bridge's scope check first; that machine then checks the link's
/// own scopes (what a phone may do there is the intersection). Its id is derived from the session and the
/// phone's id, so a phone that sends the same request again after a lost connection is answered once there.
public struct FleetRouter: RequestHandling {
    let hub: ThreadHub
    let links: FleetLinks
    let admin: MachineAdmin
    /// Voice sessions phones started on linked machines (stopped there when the phone leaves).
    let voices = FleetVoices()

    public init(hub: ThreadHub, links: FleetLinks, admin: MachineAdmin) {
        self.hub = hub
        self.links = links
        self.admin = admin
    }

    public func sessionOpened(_ session: ClientSession) async -> SessionOpening {
        var opening = await hub.sessionOpened(session)
        if session.hello.fleet == true {
            opening.machines = await links.statuses()
            await links.join(session)
        }
        return opening
    }

    public func sessionReady(_ session: ClientSession) async {
        await hub.sessionReady(session)
    }

    public nonisolated func immediateOpening(for hello: Hello, principal: Principal) -> SessionOpening? {
        // A fleet ack lists the machines, which takes the links' actor.
        hello.fleet == true ? nil : hub.immediateOpening(for: hello, principal: principal)
    }

    public func sessionRegistered(_ session: ClientSession) async {
        await hub.sessionRegistered(session)
    }

    public func acknowledged(_ seq: Int64, session: ClientSession) async {
        await hub.acknowledged(seq, session: session)
    }

    public func sessionClosed(_ session: ClientSession) async {
        if session.hello.fleet == true { await links.leave(session) }
        await hub.sessionClosed(session)
        for (machine, threadId) in voices.take(session: session.id) {
            // Best effort: a machine not reachable now ended it already (its link's connection closed).
            _ = try? await links.link(machine)?.send(
                BridgeRequest(.stopVoice, ThreadRef(threadId: threadId)), id: Self.forwardedId("stopVoice-\(threadId)", session: session))
        }
    }

    public func isResponsive() async -> Bool {
        await hub.isResponsive()
    }

    /// The kinds this layer answers itself (the machines' own are ``MachineAdmin``'s).
    static let kinds: Set<RequestKind> = [.retryMachine]

    public func handle(_ request: BridgeRequest, id: String, session: ClientSession) async -> ServerMessage {
        if MachineAdmin.kinds.contains(request.requestKind) { return await manage(request, id: id, session: session) }
        if let retry = request.payload(as: RetryMachine.self) { return await retryMachine(retry, id: id, session: session) }
        guard session.hello.fleet == true else { return await hub.handle(request, id: id, session: session) }
        if let list = request.payload(as: ListThreads.self) { return await listFleet(list, id: id, session: session) }
        var machineId = links.directory.withLock { $0.route(request) }
        if machineId == links.home.id { machineId = nil }
        guard let machineId else { return await hub.handle(request, id: id, session: session) }
        if request.requestKind == .unsubscribe { return await hub.handle(request, id: id, session: session) }
        if let refusal = ScopeGate.check(request, session: session) {
            let answer = ServerMessage.error(refusal.errorMessage(id: id))
            await hub.auditor.record(request, answer: answer, session: session)
            return answer
        }
        if request.requestKind == .openPreview { return await refusePreview(request, id: id, machineId: machineId, session: session) }
        if let subscribe = request.payload(as: Subscribe.self) {
            do {
                return .response(
                    id: id, .subscribed(try await hub.subscribeRelayed(session, to: subscribe.threadId, afterSeq: subscribe.afterSeq)))
            } catch {
                return await hub.handle(request, id: id, session: session)  // its own error (a bad thread id, too many)
            }
        }
        // The answer comes back credited to the link: remember which device here gave it.
        if let deviceId = session.principal.deviceId {
            if let approve = request.payload(as: Approve.self) {
                links.directory.withLock { $0.answered(approve.approvalId, by: deviceId) }
            }
            if let answer = request.payload(as: AnswerInput.self) {
                links.directory.withLock { $0.answered(answer.requestId, by: deviceId) }
            }
        }
        guard let link = await links.link(machineId) else {
            let machine = MachineRef(id: machineId, name: machineId)
            return .error(FleetError.unavailable(machine).errorMessage(id: id))
        }
        // The machine records who at home made the request, as reported here (its audit row names the link).
        var forwarded = request.withoutMachine()
        let deviceId = session.principal.deviceId
        forwarded.onBehalfOf = OnBehalfOf(
            actor: deviceId == nil ? .sharedSecret : .device, deviceId: deviceId, name: await hub.deviceName(deviceId))
        if let refusal = FleetVoices.refusal(request, id: id, machine: link.ref) {
            await hub.auditor.record(request, answer: .error(refusal), session: session)
            return .error(refusal)
        }
        var answer = await forward(forwarded, id: id, to: link, session: session)
        if FleetVoices.kinds.contains(request.requestKind) {
            if case .error(let error) = answer { answer = .error(FleetVoices.translated(error, request, machine: link.ref)) }
            voices.answered(request, answer, session: session.id, machine: machineId)
        }
        // Audited here as well as there (where the link is the actor): who at home did what on which machine.
        if request.descriptor.audited { await hub.auditor.record(request, answer: answer, session: session) }
        return answer
    }

    /// A linked machine's preview would open on that machine's preview port, which a phone does not reach through
    /// this bridge; and its answer would name the tab the phone opens. The request never goes there.
    private func refusePreview(_ request: BridgeRequest, id: String, machineId: String, session: ClientSession) async -> ServerMessage {
        let name = await links.link(machineId)?.ref.name ?? machineId
        let answer = ServerMessage.error(
            ErrorMessage(
                id: id, code: .notFound,
                message: "previews of \(name)'s threads are not served through this bridge; open them from \(name)'s own web app",
                machine: machineId))
        await hub.auditor.record(request, answer: answer, session: session)
        return answer
    }

    /// The admin's machine requests, for any session with `admin`; audited as the hub audits its own.
    private func manage(_ request: BridgeRequest, id: String, session: ClientSession) async -> ServerMessage {
        let answer: ServerMessage
        if let refusal = ScopeGate.check(request, session: session) {
            answer = .error(refusal.errorMessage(id: id))
        } else {
            do {
                answer = .response(id: id, .machines(try await admin.answer(request, id: id)))
            } catch {
                answer = .error(error)
            }
        }
        // State changes and every refusal, as the hub audits its own requests.
        if case .error = answer {
            await hub.auditor.record(request, answer: answer, session: session)
        } else if request.descriptor.audited {
            await hub.auditor.record(request, answer: answer, session: session)
        }
        return answer
    }

    /// Try now: the link to the machine ends its wait before the next attempt.
    private func retryMachine(_ retry: RetryMachine, id: String, session: ClientSession) async -> ServerMessage {
        if let refusal = ScopeGate.check(BridgeRequest(.retryMachine, retry), session: session) {
            return .error(refusal.errorMessage(id: id))
        }
        guard let link = await links.link(retry.machineId) else {
            return .error(ErrorMessage(id: id, code: .notFound, message: "no linked machine \(retry.machineId.prefix(64))"))
        }
        await link.retryNow()
        return .response(id: id, .accepted(Accepted()))
    }

    /// Sends a request to a linked machine and passes its answer on, labelled.
    private func forward(_ request: BridgeRequest, id: String, to link: MachineLink, session: ClientSession) async -> ServerMessage {
        let seam = await hub.lastSeq
        do {
            // editQueued's id names the message (its queuedId), so it goes as it came.
            let forwarded = request.requestKind == .editQueued ? id : Self.forwardedId(id, session: session)
            let response = try await link.send(request, id: forwarded)
            switch response {
            case .threadStarted(let started):
                guard await !hub.runsThread(started.threadId),
                    links.directory.withLock({ $0.claim(thread: started.threadId, by: link.ref.id) })
                else {
                    return .error(
                        ErrorMessage(
                            id: id, code: .internal, message: "\(link.ref.name) answered with a thread it does not own",
                            machine: link.ref.id))
                }
                // Whatever the link relayed of the new thread since the request left is replayed first (unless the
                // session already gets it through `*`, live).
                if await !hub.covers(session, started.threadId) {
                    _ = try? await hub.subscribeRelayed(session, to: started.threadId, afterSeq: seam)
                }
            case .threads(var list):
                list.threads = list.threads.map { Self.labelled($0, link.ref) }
                return .response(id: id, .threads(list))
            default:
                break
            }
            return .response(id: id, response)
        } catch let error as FleetError {
            return .error(error.errorMessage(id: id))
        } catch let error as BridgeRequestError {
            return .error(
                ErrorMessage(
                    id: id, code: error.code, message: "\(link.ref.name): \(error.message)", scope: error.scope, machine: link.ref.id))
        } catch {
            return .error(FleetError.lost(link.ref, "\(error)").errorMessage(id: id))
        }
    }

    /// Every machine's threads, newest first, each labelled with its machine. A machine that does not answer
    /// within 5 s contributes the threads it had last.
    private func listFleet(_ list: ListThreads, id: String, session: ClientSession) async -> ServerMessage {
        let home = await hub.handle(BridgeRequest(.listThreads, list), id: id, session: session)
        guard case .response(_, .threads(var merged)) = home else { return home }
        merged.threads = merged.threads.map { Self.labelled($0, links.home) }
        // The home bridge's own threads are its own: no linked machine can claim them later.
        links.directory.withLock { directory in
            for thread in merged.threads { directory.claim(thread: thread.threadId, by: links.home.id) }
        }
        // Paging continues on the home bridge only; the linked machines' newest threads come with the first page.
        guard list.cursor == nil else { return .response(id: id, .threads(merged)) }
        let linked = await links.allLinks()
        let forwardedId = Self.forwardedId(id, session: session)
        let answers = await withTaskGroup(of: [ThreadSummary].self) { group in
            for link in linked {
                group.addTask {
                    if case .threads(let remote)? = try? await Self.withTimeout(
                        .seconds(5), { try await link.send(BridgeRequest(.listThreads, list), id: forwardedId) })
                    {
                        await link.remember(remote.threads)
                    }
                    return await link.lastThreads.map { Self.labelled($0, link.ref) }
                }
            }
            var all: [[ThreadSummary]] = []
            for await answer in group { all.append(answer) }
            return all
        }
        merged.threads += answers.flatMap { $0 }
        merged.threads.sort { ($0.updatedAt ?? 0) > ($1.updatedAt ?? 0) }
        return .response(id: id, .threads(merged))
    }

    private static func labelled(_ thread: ThreadSummary, _ machine: MachineRef) -> ThreadSummary {
        var thread = thread
        thread.machine = machine
        return thread
    }

    /// The id a forwarded request carries: the same for the same phone and request id, different for another
    /// phone (the linked machine deduplicates per link, which all of this bridge's phones share).
    static func forwardedId(_ id: String, session: ClientSession) -> String {
        ForwardedRequestId.make("fleet-", who: session.principal.deviceId ?? session.hello.clientId ?? "session-\(session.id)", id: id)
    }

    private static func withTimeout<T: Sendable>(_ limit: Duration, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await Task.sleep(for: limit)
                throw CancellationError()
            }
            defer { group.cancelAll() }
            return try await group.next()!
        }
    }
}
