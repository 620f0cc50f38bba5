import BridgeClient
import BridgeHub
import BridgeProtocol
import BridgeStore
import Foundation
import Logging

/// The home bridge's link to one linked machine: a client of that bridge over the bridge protocol, with the
/// device token it was given when it paired and the certificate it pinned. It subscribes to every thread there
/// and relays each journaled message into the home bridge's journal (``ThreadHub/relay(_:from:remoteSeq:)``),
/// resuming after the highest seq it relayed (kept in that journal): a drop or a restart of either side loses
/// nothing and repeats nothing.
///
/// One connection at a time, reconnecting for as long as the machine stays linked: every 0.4 s or so for the first
/// two minutes of an outage (a restarted machine is back on the phones within half a second of answering again),
/// then with a backoff up to 10 s; ``retryNow()`` ends the wait. Requests the home bridge forwards
/// (``send(_:id:)``) fail at once while the machine is offline.
public actor MachineLink {
    /// What the link reports.
    public enum Change: Sendable {
        /// The machine's state changed.
        case state(MachineStatus)
        /// The machine refused this bridge's credential (the link was revoked there).
        case revoked(MachineStatus)
    }

    public nonisolated let machine: MachineStore.Machine
    public nonisolated let ref: MachineRef
    /// What the link may make this bridge hold.
    public nonisolated let budget: LinkBudget
    /// What the link held at most, and why it was last closed (for the metrics and the tests).
    public nonisolated let meter = LinkMeter()
    let hub: ThreadHub
    private let journal: EventJournal
    private let store: MachineStore
    let directory: SharedFleetDirectory
    let logger: Logger
    private let onChange: @Sendable (Change) async -> Void
    var client: BridgeClient?
    private(set) var state = MachineState.offline
    /// Why this bridge closed the link the last time (until it works again).
    private(set) var problem: WireError?
    /// The thread list last read from the machine (shown, labelled offline, while it is unreachable).
    private(set) var lastThreads: [ThreadSummary] = []
    /// What the machine lets its clients choose, from its last `helloAck`.
    private(set) var policy: ClientPolicy?

    init(
        machine: MachineStore.Machine, hub: ThreadHub, journal: EventJournal, store: MachineStore, directory: SharedFleetDirectory,
        budget: LinkBudget = .standard, logger: Logger, onChange: @escaping @Sendable (Change) async -> Void
    ) {
        self.machine = machine
        self.ref = MachineRef(id: machine.id, name: machine.name)
        self.budget = budget
        self.hub = hub
        self.journal = journal
        self.store = store
        self.directory = directory
        var logger = logger
        logger[metadataKey: "bridge.machine.id"] = "\(machine.id)"
        self.logger = logger
        self.onChange = onChange
    }

    /// The machine and its state.
    var status: MachineStatus { MachineStatus(id: ref.id, name: ref.name, state: state, policy: policy, error: problem) }

    /// How soon the link tries again while an outage is young: a refused connection costs the machine nothing.
    static let promptRetry = ReconnectBackoff(initialDelay: .milliseconds(100), maximumDelay: .milliseconds(400), maxAttempts: .max)
    /// How long an outage counts as young.
    static let promptFor: Duration = .seconds(120)
    /// After that: 250 ms doubling up to 10 s.
    static let patientRetry = ReconnectBackoff(initialDelay: .milliseconds(250), maximumDelay: .seconds(10), maxAttempts: .max)

    /// The wait before the next attempt (``retryNow()`` ends it).
    private var waiting: Task<Void, Never>?

    /// Connects, relays and reconnects until cancelled or the machine refuses the credential. A link closed for
    /// a problem (a bad frame, over its budget) waits ``LinkBudget/pauseAfterProblem`` before the next try.
    func run() async {
        var backoff = Self.promptRetry
        var outageBegan = ContinuousClock.now
        var patient = false
        while !Task.isCancelled {
            let outcome = await connectAndRelay()
            // Unlinked (the task was cancelled): the removal is what the phones hear, not an "offline" first.
            if Task.isCancelled { return }
            switch outcome {
            case .revoked:
                await setState(.offline)
                logger.warning("A linked machine refused this bridge's credential; link it again with codex-bridge machines add")
                try? await store.setState(machine.id, "revoked")
                await onChange(.revoked(status))
                return
            case .problem(let why):
                meter.closed(for: why)
                logger.warning(
                    "Closed the link to a linked machine", metadata: ["bridge.error.code": "\(why.code)", "bridge.error": "\(why.message)"])
                await setState(.offline, problem: why)
                await pause(budget.pauseAfterProblem)
                continue
            case .connected:
                backoff.reset()
            case .failed:
                break
            }
            await setState(.offline, problem: problem)
            if case .connected = outcome {
                (backoff, outageBegan, patient) = (Self.promptRetry, .now, false)
            } else if !patient, ContinuousClock.now - outageBegan > Self.promptFor {
                (backoff, patient) = (Self.patientRetry, true)
            }
            guard let delay = backoff.next() else { return }
            await pause(delay)
        }
    }

    /// Waits `delay`, or less when ``retryNow()`` is called meanwhile (or the link is cancelled).
    private func pause(_ delay: Duration) async {
        let wait = Task { _ = try? await Task.sleep(for: delay) }
        waiting = wait
        await withTaskCancellationHandler {
            await wait.value
        } onCancel: {
            wait.cancel()
        }
        waiting = nil
    }

    /// Tries again now rather than after the wait (a phone's Try now).
    func retryNow() {
        waiting?.cancel()
    }

    enum Outcome {
        case connected, failed, revoked
        /// This bridge closed the link for cause.
        case problem(WireError)
    }

    private func connectAndRelay() async -> Outcome {
        let cursor: Int64?
        do {
            cursor = try journal.relayCursor(machine: machine.id)
        } catch {
            logger.error("Cannot read the relay cursor", metadata: ["error": "\(error)"])
            return .failed
        }
        let endpoints = machine.addresses.map { BridgeEndpoint(host: $0, port: machine.port, tls: machine.fingerprint != nil) }
        var configuration = BridgeClientConfiguration(
            target: .endpoints(endpoints, pin: machine.fingerprint.flatMap(CertificatePin.init(fingerprint:))), token: machine.token,
            clientId: machine.clientId, reconnects: false, handshakeTimeout: .seconds(10))
        configuration.resumeFrom = cursor
        configuration.relaysFrames = true
        let transport = WebSocketTransport(maxMessageBytes: budget.maxMessageBytes, inboundWindowBytes: budget.inFlightBytes)
        let client = BridgeClient(configuration: configuration, transport: transport, logger: logger)
        let ack: HelloAck
        do {
            ack = try await client.connect()
        } catch {
            if error.isCredentialRefused { return .revoked }
            if let why = LinkMeter.problem(of: error) { return .problem(why) }
            logger.debug("A linked machine is unreachable", metadata: ["error": "\(error)"])
            return .failed
        }
        self.client = client
        meter.connected(window: await client.inboundWindow)
        policy = ack.policy ?? policy
        await setState(.online)  // and the last problem is past
        logger.info("Linked machine online", metadata: ["bridge.machine.name": "\(machine.name)"])
        let why = await relay(from: client, ack: ack, cursor: cursor)
        self.client = nil
        let statuses = client.statuses
        await client.close()
        var outcome = Outcome.connected
        for await status in statuses {
            if case .failed(let error) = status {
                if error.isCredentialRefused { return .revoked }
                if let why = LinkMeter.problem(of: error) { outcome = .problem(why) }
            }
        }
        return why.map(Outcome.problem) ?? outcome
    }

    /// Reads the machine's thread list again (kept for when it is offline).
    func refreshThreads() async {
        guard let client else { return }
        if case .threads(let list) = try? await client.send(BridgeRequest(.listThreads, ListThreads(limit: 100))) {
            await remember(list.threads)
        }
    }

    /// Keeps a list answered by the machine and learns its threads, leaving out any the home bridge runs itself or
    /// another machine owns.
    func remember(_ threads: [ThreadSummary]) async {
        var owned: [ThreadSummary] = []
        for thread in threads.prefix(Self.maxListed) where thread.threadId.utf8.count <= ThreadHub.maxRelayedIdBytes {
            guard await !hub.runsThread(thread.threadId) else { continue }
            if directory.withLock({ $0.claim(thread: thread.threadId, by: machine.id) }) { owned.append(thread) }
        }
        lastThreads = owned
    }

    /// The most threads kept from one machine's list.
    static let maxListed = 200

    /// Forwards a request; throws `machine_unavailable` at once when the machine is not connected.
    func send(_ request: BridgeRequest, id: String) async throws -> BridgeResponse {
        guard let client, state == .online else { throw FleetError.unavailable(ref) }
        do {
            return try await client.send(request, id: id)
        } catch let error as BridgeClientError {
            throw FleetError.lost(ref, error.message)
        }
    }

    /// Closes the connection (the machine was unlinked).
    func stop() async {
        await client?.close()
        client = nil
    }

    private func setState(_ new: MachineState, problem: WireError? = nil) async {
        guard new != state || problem != self.problem else { return }
        state = new
        self.problem = problem
        try? await store.setState(machine.id, new.rawValue, errorCode: problem?.code.rawValue, errorMessage: problem?.message)
        await onChange(.state(status))
    }
}

extension BridgeClientError {
    /// The bridge refused the credential or closed the connection by policy (the link was revoked there).
    var isCredentialRefused: Bool {
        code == .authenticationFailed && serverCode != .rateLimited && serverCode != .versionUnsupported
    }
}
