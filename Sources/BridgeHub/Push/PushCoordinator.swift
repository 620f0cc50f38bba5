import BridgeProtocol
import BridgePush
import BridgeStore
import Foundation
import Logging
import ServiceLifecycle

/// Decides who is told what, and when: Web Push to subscribed devices that are away (not on a visible page),
/// ntfy topics and webhooks; mints the single-use action tokens of `POST /push/action`; replaces an
/// approval's notification once it was answered elsewhere.
///
/// The hub sends ``Signal``s in the order things happen; a `Service`: `run()` consumes them.
public actor PushCoordinator: Service {
    public struct Configuration: Sendable {
        /// How long a connected but hidden device has to see an event before it is pushed.
        public var delay: Duration
        /// The VAPID `sub` (a `mailto:` or https URL).
        public var subject: String
        /// How long an action token lives (at most until its approval resolves).
        public var tokenLifetime: Duration
        /// ntfy topics and webhooks.
        public var notifyTargets: [NotifyTarget]
        /// The base URL phones reach the bridge at (`https://host:9099`), for ntfy/webhook action buttons; nil
        /// leaves them out.
        public var actionBaseURL: String?
        /// Retries of one Web Push delivery on 429 and 5xx.
        public var maxAttempts: Int
        /// Where subscriptions may point (`serve --allow-push-host`).
        public var endpoints: PushEndpointPolicy

        public init(
            delay: Duration = .seconds(20), subject: String, tokenLifetime: Duration = .seconds(15 * 60),
            notifyTargets: [NotifyTarget] = [],
            actionBaseURL: String? = nil, maxAttempts: Int = 4, endpoints: PushEndpointPolicy = PushEndpointPolicy()
        ) {
            self.endpoints = endpoints
            self.delay = delay
            self.subject = subject
            self.tokenLifetime = tokenLifetime
            self.notifyTargets = notifyTargets
            self.actionBaseURL = actionBaseURL
            self.maxAttempts = maxAttempts
        }
    }

    /// What the hub tells the coordinator, in order.
    public enum Signal: Sendable {
        case sessionOpened(ClientSession, owner: String?)
        case presence(sessionId: UInt64, visible: Bool)
        case sessionClosed(UInt64)
        case approvalRequested(ApprovalRequest)
        case approvalResolved(approvalId: String, decision: ApprovalDecision, deviceId: String?)
        case threadNamed(threadId: String, name: String)
        case agentMessage(threadId: String, text: String)
        case turnEnded(threadId: String, failed: Bool, reason: String?)
    }

    /// The VAPID public key for `helloAck.server.pushPublicKey`; nil when Web Push is off (ntfy/webhooks only).
    public nonisolated let publicKey: String?
    /// Whether Web Push is on (else only ntfy and webhooks are notified).
    public nonisolated let webPush: Bool

    let configuration: Configuration
    let store: PushSubscriptionStore
    let devices: DeviceRegistry?
    let sender: WebPushSender
    let notifier: NotifySender
    let logger: Logger
    let signals: AsyncStream<Signal>
    let continuation: AsyncStream<Signal>.Continuation

    var presence = PushPresence()
    var sessions: [UInt64: ClientSession] = [:]
    var tokens: ActionTokenBook
    /// Approvals not yet answered, with their notice.
    var pendingApprovals: [String: PushNotice] = [:]
    /// Per approval, the subscriptions its notice was pushed to (they get the follow-up).
    var pushedApprovals: [String: Set<String>] = [:]
    var threadNames: [String: String] = [:]
    var lastAgentMessage: [String: String] = [:]
    var tasks: [UInt64: Task<Void, Never>] = [:]
    var nextTask: UInt64 = 0

    public init(
        configuration: Configuration, key: VAPIDKey, store: PushSubscriptionStore, devices: DeviceRegistry?, webPush: Bool = true,
        logger: Logger
    ) {
        self.configuration = configuration
        self.webPush = webPush
        self.publicKey = webPush ? key.publicKeyBase64URL : nil
        self.store = store
        self.devices = devices
        self.sender = WebPushSender(
            policy: configuration.endpoints, key: key, subject: configuration.subject, maxAttempts: configuration.maxAttempts,
            logger: logger)
        self.notifier = NotifySender(logger: logger)
        self.logger = logger
        self.tokens = ActionTokenBook(lifetime: configuration.tokenLifetime)
        let (stream, continuation) = AsyncStream.makeStream(of: Signal.self)
        self.signals = stream
        self.continuation = continuation
    }

    public nonisolated var description: String { "PushCoordinator" }

    /// Queues a signal (never blocks the hub).
    public nonisolated func signal(_ signal: Signal) {
        continuation.yield(signal)
    }

    public func run() async throws {
        await withGracefulShutdownHandler {
            for await signal in signals {
                await handle(signal)
            }
        } onGracefulShutdown: { [continuation] in
            continuation.finish()
        }
        for task in tasks.values { task.cancel() }
        for task in tasks.values { await task.value }
        await notifier.shutdown()
    }

    // MARK: Requests

    /// Stores a subscription for `owner`; returns its id.
    public func subscribe(owner: String, _ request: PushSubscribe) async throws(PushError) -> String {
        guard webPush else { throw PushError("forbidden", "Web Push is turned off on this bridge (--no-push)") }
        let checked = try ValidatedSubscription(
            endpoint: request.subscription.endpoint, p256dh: request.subscription.keys.p256dh, auth: request.subscription.keys.auth,
            events: request.events, policy: configuration.endpoints)
        // The lookup now; each delivery looks it up and checks it again.
        _ = try await configuration.endpoints.destination(of: request.subscription.endpoint)
        do {
            let id = try await store.save(
                owner: owner, endpoint: checked.endpoint.absoluteString, p256dh: Data(checked.p256dh), auth: Data(checked.auth),
                events: checked.events.map(\.rawValue).sorted().joined(separator: ","))
            logger.info(
                "Push subscription saved",
                metadata: ["bridge.push.subscription": "\(id)", "bridge.push.origin": "\(VAPIDKey.origin(of: checked.endpoint) ?? "?")"])
            return id
        } catch {
            throw PushError("internal", "cannot store the subscription: \(error)")
        }
    }

    /// Removes `owner`'s subscription `id`; false when it holds none by that id.
    public func unsubscribe(owner: String, id: String) async throws -> Bool {
        try await store.remove(id: id, owner: owner)
    }

    /// Uses an action token: its binding when live, nil when used, expired, unknown or another owner's.
    public func redeem(token: String, presenter: String?) -> ActionTokenBook.Binding? {
        tokens.redeem(token, presenter: presenter)
    }

    /// Live action tokens (tests, metrics).
    public var liveTokens: Int { tokens.count }

    // MARK: Signals

    func handle(_ signal: Signal) async {
        switch signal {
        case .sessionOpened(let session, let owner):
            guard let owner else { return }
            sessions[session.id] = session
            presence.opened(session.id, owner: owner)
        case .presence(let id, let visible):
            presence.visibility(id, visible: visible)
        case .sessionClosed(let id):
            sessions[id] = nil
            presence.closed(id)
        case .threadNamed(let threadId, let name):
            threadNames[threadId] = name
        case .agentMessage(let threadId, let text):
            lastAgentMessage[threadId] = text
        case .approvalRequested(let request):
            let notice = PushNotice(
                kind: .approval, title: "Approval needed", body: describe(request), tag: "approval-\(request.approvalId)",
                threadId: request.threadId, approvalId: request.approvalId)
            pendingApprovals[request.approvalId] = notice
            await dispatch(notice)
        case .approvalResolved(let approvalId, let decision, let deviceId):
            await resolved(approvalId, decision: decision, deviceId: deviceId)
        case .turnEnded(let threadId, let failed, let reason):
            let name = threadNames[threadId]
            let text = failed ? (reason ?? "the turn failed") : (lastAgentMessage.removeValue(forKey: threadId) ?? "")
            let line = PushNotice.firstLine(text)
            let body = [name, line.isEmpty ? nil : line].compactMap { $0 }.joined(separator: ": ")
            await dispatch(
                PushNotice(
                    kind: failed ? .turnFailed : .turnCompleted, title: failed ? "Turn failed" : "Turn completed", body: body,
                    tag: "turn-\(threadId)", threadId: threadId))
        }
    }

    /// "the command", "N file changes" or the reason, and the thread's name.
    func describe(_ request: ApprovalRequest) -> String {
        var what: String
        switch request.type {
        case "command": what = PushNotice.firstLine(request.command ?? request.reason ?? "a command")
        case "fileChange":
            let count = request.changes?.objectValue?.count ?? request.changes?.arrayValue?.count ?? 0
            what = count == 1 ? "1 file change" : "\(count) file changes"
        default: what = PushNotice.firstLine(request.reason ?? "more permissions")
        }
        if what.isEmpty { what = request.type }
        let name = threadNames[request.threadId] ?? request.cwd.map { URL(fileURLWithPath: $0).lastPathComponent }
        return [what, name].compactMap { $0 }.joined(separator: "\n")
    }

    func stalled(_ id: UInt64) -> Bool {
        guard let session = sessions[id] else { return false }
        return session.sink.count > session.sink.capacity / 4
    }

    /// Pushes `notice` to every subscription that wants it, by its owner's presence; and to ntfy/webhooks.
    func dispatch(_ notice: PushNotice) async {
        var entries: [PushSubscriptionStore.Entry] = []
        do {
            if webPush { entries = try await store.all() }
        } catch {
            logger.warning("Cannot read push subscriptions", metadata: ["error": "\(error)"])
            return
        }
        // A device sees a notice only while it may observe, and gets an approval's buttons (its action token) only
        // while it may approve.
        var scopes: [String: Scopes] = [:]
        if !entries.isEmpty, let devices {
            do {
                scopes = try await devices.scopes(among: entries.map(\.owner))
            } catch {
                logger.warning("Cannot read device scopes", metadata: ["error": "\(error)"])
                return
            }
        }
        for entry in entries where entry.events.split(separator: ",").contains(Substring(notice.eventKind.rawValue)) {
            let granted = devices == nil ? Scopes.standard : scopes[entry.owner] ?? .none
            guard granted.contains(.observe) else { continue }
            let actions = granted.contains(.approve)
            switch presence.verdict(for: entry.owner, stalled: stalled) {
            case .skip:
                logger.debug("No push: the device is looking", metadata: ["bridge.push.subscription": "\(entry.id)"])
            case .now:
                deliver(notice, to: entry, actions: actions)
            case .later:
                let looks = presence.looks(of: entry.owner)
                spawn { [delay = configuration.delay] in
                    try? await Task.sleep(for: delay)
                    guard !Task.isCancelled else { return }
                    await self.deliverLater(notice, to: entry, looks: looks, actions: actions)
                }
            }
        }
        guard !configuration.notifyTargets.isEmpty else { return }
        if presence.anyVisible(stalled: stalled) {
            spawn { [delay = configuration.delay] in
                try? await Task.sleep(for: delay)
                guard !Task.isCancelled else { return }
                await self.notifyLater(notice)
            }
        } else {
            notifyTargets(notice)
        }
    }

    /// After the delay: still unanswered, and not seen meanwhile (no page of the device came on screen)?
    func deliverLater(_ notice: PushNotice, to entry: PushSubscriptionStore.Entry, looks: Int, actions: Bool) {
        if let approvalId = notice.approvalId, pendingApprovals[approvalId] == nil { return }
        guard presence.looks(of: entry.owner) == looks, presence.verdict(for: entry.owner, stalled: stalled) != .skip else { return }
        deliver(notice, to: entry, actions: actions)
    }

    func notifyLater(_ notice: PushNotice) {
        if let approvalId = notice.approvalId, pendingApprovals[approvalId] == nil { return }
        notifyTargets(notice)
    }

    /// `actions`: whether the device may answer (an approval then carries its action token: the buttons).
    func deliver(_ notice: PushNotice, to entry: PushSubscriptionStore.Entry, actions: Bool) {
        var token: String?
        if notice.kind == .approval, let approvalId = notice.approvalId {
            if actions { token = tokens.mint(approvalId: approvalId, owner: entry.owner) }
            pushedApprovals[approvalId, default: []].insert(entry.id)
        }
        let payload = notice.payload(token: token)
        guard let endpoint = URL(string: entry.endpoint) else { return }
        let urgency: WebPushSender.Urgency = notice.kind == .approval ? .high : .normal
        // An approval (and its follow-up) means nothing once its token expired.
        let ttl = notice.approvalId != nil ? Int(configuration.tokenLifetime.components.seconds) : 24 * 3600
        let topic = notice.topic
        spawn { [sender, store, logger] in
            let outcome = await sender.send(
                payload, to: endpoint, p256dh: [UInt8](entry.p256dh), auth: [UInt8](entry.auth), ttl: ttl, urgency: urgency, topic: topic)
            switch outcome {
            case .delivered: BridgeMetrics.shared.pushed("delivered")
            case .gone: BridgeMetrics.shared.pushed("gone")
            case .failed: BridgeMetrics.shared.pushed("failed")
            }
            if outcome == .gone {
                do {
                    try await store.remove(id: entry.id)
                    logger.info("Push subscription dropped (gone)", metadata: ["bridge.push.subscription": "\(entry.id)"])
                } catch {
                    logger.warning("Cannot drop a push subscription", metadata: ["error": "\(error)"])
                }
            } else if outcome == .delivered {
                logger.debug(
                    "Push delivered", metadata: ["bridge.push.subscription": "\(entry.id)", "bridge.push.kind": "\(notice.kind.rawValue)"])
            }
        }
    }

    func notifyTargets(_ notice: PushNotice) {
        for (index, target) in configuration.notifyTargets.enumerated() {
            var actions: NotifySender.Actions?
            if notice.kind == .approval, let approvalId = notice.approvalId, let base = configuration.actionBaseURL {
                let token = tokens.mint(approvalId: approvalId, owner: "notify:\(index)")
                actions = .init(url: base + "/push/action", token: token)
            }
            spawn { [notifier, actions] in
                let sent = await notifier.send(notice, to: target, actions: actions)
                BridgeMetrics.shared.pushed(sent ? "notified" : "notify_failed")
            }
        }
    }

    func resolved(_ approvalId: String, decision: ApprovalDecision, deviceId: String?) async {
        tokens.approvalResolved(approvalId)
        let notice = pendingApprovals.removeValue(forKey: approvalId)
        guard let notice, let pushed = pushedApprovals.removeValue(forKey: approvalId), !pushed.isEmpty else { return }
        var name = "another device"
        if let deviceId, let record = try? await devices?.device(id: deviceId) { name = record.name }
        let title =
            switch decision {
            case .accept, .acceptForSession: "Approved on \(name)"
            case .decline: "Declined on \(name)"
            case .cancel: "Cancelled"
            }
        let followUp = PushNotice(
            kind: .resolved, title: title, body: notice.body, tag: notice.tag, threadId: notice.threadId, approvalId: approvalId)
        let entries = (try? await store.all()) ?? []
        for entry in entries where pushed.contains(entry.id) {
            deliver(followUp, to: entry, actions: false)
        }
    }

    func spawn(_ work: @escaping @Sendable () async -> Void) {
        nextTask += 1
        let id = nextTask
        tasks[id] = Task {
            await work()
            self.finished(id)
        }
    }

    func finished(_ id: UInt64) {
        tasks[id] = nil
    }
}
