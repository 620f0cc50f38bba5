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
/// Every request runs the hub's one pipeline (``RequestPipeline``): scope, exactly-once and audit here, then this
/// layer as its machine step, which picks the machine by the kind's declared ``MachineRoute``. A request for a
/// linked machine passed this bridge's scope check; that machine then checks the link's own scopes (what a phone
/// may do there is the intersection). Its id is derived from the session and the
/// phone's id, so a phone that sends the same request again after a lost connection is answered once there.
public struct FleetRouter: RequestHandling, MachineStep {
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

    /// Through the hub's pipeline (scope, exactly-once, audit), with this layer as its machine step.
    public func handle(_ request: BridgeRequest, id: String, session: ClientSession) async -> ServerMessage {
        await hub.pipeline.handle(request, id: id, session: session, machines: self)
    }

    /// Where a request goes, by its kind's ``MachineRoute``, the session and the machine it is for.
    enum Decision: Equatable {
        /// This layer's own (the machines).
        case fleet
        /// This bridge's.
        case here
        /// This bridge's and every linked machine's, merged.
        case everyMachine
        /// A linked thread's events, from this bridge's journal.
        case relayed(String)
        /// A linked machine's, refused here.
        case refused(String)
        /// Sent to the linked machine.
        case forward(String)

        /// `linked`: the linked machine the request names or follows (nil: this bridge's own).
        static func of(_ route: MachineRoute, fleetSession: Bool, linked: String?) -> Decision {
            // A session that did not ask for the fleet is the hub's alone, exactly as without links.
            if route != .fleet, !fleetSession { return .here }
            switch route {
            case .fleet: return .fleet
            case .here: return .here
            case .everyMachine: return .everyMachine
            case .relayedHere: return linked.map(Decision.relayed) ?? .here
            case .notForwarded: return linked.map(Decision.refused) ?? .here
            case .follows: return linked.map(Decision.forward) ?? .here
            }
        }
    }

    /// The pipeline's machine step: nil when this bridge answers.
    public func answer(
        _ request: BridgeRequest, id: String, session: ClientSession, here: @escaping @Sendable () async -> ServerMessage
    ) async -> ServerMessage? {
        var linked = links.directory.withLock { $0.route(request) }
        if linked == links.home.id { linked = nil }
        switch Decision.of(request.descriptor.route, fleetSession: session.hello.fleet == true, linked: linked) {
        case .here:
            return nil
        case .fleet:
            if let retry = request.payload(as: RetryMachine.self) { return await retryMachine(retry, id: id) }
            do {
                return .response(id: id, .machines(try await admin.answer(request, id: id)))
            } catch {
                return .error(error)
            }
        case .everyMachine:
            guard let list = request.payload(as: ListThreads.self) else { return nil }
            return await listFleet(list, id: id, session: session, here: here)
        case .relayed:
            guard let subscribe = request.payload(as: Subscribe.self) else { return nil }
            do {
                return .response(
                    id: id, .subscribed(try await hub.subscribeRelayed(session, to: subscribe.threadId, afterSeq: subscribe.afterSeq)))
            } catch {
                return await here()  // its own error (a bad thread id, too many)
            }
        case .refused(let machineId):
            return await refusePreview(id: id, machineId: machineId)
        case .forward(let machineId):
            return await forward(request, id: id, machineId: machineId, session: session)
        }
    }

    /// A linked machine's preview would open on that machine's preview port, which a phone does not reach through
    /// this bridge; and its answer would name the tab the phone opens. The request never goes there.
    private func refusePreview(id: String, machineId: String) async -> ServerMessage {
        let name = await links.link(machineId)?.ref.name ?? machineId
        return .error(
            ErrorMessage(
                id: id, code: .notFound,
                message: "previews of \(name)'s threads are not served through this bridge; open them from \(name)'s own web app",
                machine: machineId))
    }

    /// Try now: the link to the machine ends its wait before the next attempt.
    private func retryMachine(_ retry: RetryMachine, id: String) async -> ServerMessage {
        guard let link = await links.link(retry.machineId) else {
            return .error(ErrorMessage(id: id, code: .notFound, message: "no linked machine \(retry.machineId.prefix(64))"))
        }
        await link.retryNow()
        return .response(id: id, .accepted(Accepted()))
    }

    /// A request for a linked machine, as the home's device who made it (the machine's audit row names the link
    /// and this device; this bridge's pipeline audited it here too).
    private func forward(_ request: BridgeRequest, id: String, machineId: String, session: ClientSession) async -> ServerMessage {
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
            return .error(FleetError.unavailable(MachineRef(id: machineId, name: machineId)).errorMessage(id: id))
        }
        var forwarded = request.withoutMachine()
        let deviceId = session.principal.deviceId
        forwarded.onBehalfOf = OnBehalfOf(
            actor: deviceId == nil ? .sharedSecret : .device, deviceId: deviceId, name: await hub.deviceName(deviceId))
        if let refusal = FleetVoices.refusal(request, id: id, machine: link.ref) { return .error(refusal) }
        var answer = await send(forwarded, id: id, to: link, session: session)
        if FleetVoices.kinds.contains(request.requestKind) {
            if case .error(let error) = answer { answer = .error(FleetVoices.translated(error, request, machine: link.ref)) }
            voices.answered(request, answer, session: session.id, machine: machineId)
        }
        return answer
    }

    /// Sends a request to a linked machine and passes its answer on, labelled.
    private func send(_ request: BridgeRequest, id: String, to link: MachineLink, session: ClientSession) async -> ServerMessage {
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
    private func listFleet(
        _ list: ListThreads, id: String, session: ClientSession, here: @Sendable () async -> ServerMessage
    ) async -> ServerMessage {
        let home = await here()
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
