import BridgeHub
import BridgeProtocol
import BridgeStore
import Foundation
import Logging
import ServiceLifecycle

/// The home bridge's links to the machines linked to it (`codex-bridge machines add`), kept in step with the
/// machine table (a machine added or removed from the command line while `serve` runs is linked or unlinked as
/// soon as the database's ``StateChanges`` fires), and the fleet sessions told when a machine's state changes
/// (`machineChanged`).
public actor FleetLinks: Service {
    /// This bridge, first in every fleet list.
    public nonisolated let home: MachineRef
    /// Who owns which thread, approval and question (shared with the links, which learn from what they relay).
    nonisolated let directory = SharedFleetDirectory()
    private let hub: ThreadHub
    private let journal: EventJournal
    private let store: MachineStore
    private let logger: Logger
    private let changes: StateChanges
    private var links: [String: (link: MachineLink, task: Task<Void, Never>)] = [:]
    private var revoked: Set<String> = []
    private var sessions: [UInt64: ClientSession] = [:]

    public init(
        home: MachineRef, hub: ThreadHub, journal: EventJournal, store: MachineStore, logger: Logger, changes: StateChanges? = nil
    ) {
        self.home = home
        self.hub = hub
        self.journal = journal
        self.store = store
        self.logger = logger
        self.changes = changes ?? store.database.changes
    }

    public nonisolated var description: String { "FleetLinks" }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            var seen = self.changes.generation
            while !Task.isCancelled {
                let deadline = await self.sync()
                seen = await self.changes.wait(after: seen, until: deadline)
            }
        }
        for (_, entry) in links {
            entry.task.cancel()
            await entry.link.stop()
        }
        links.removeAll()
    }

    /// Links what the table holds and unlinks what it no longer does; returns when to look again without a change
    /// (a pairing left pending goes after 10 minutes).
    @discardableResult
    func sync() async -> ContinuousClock.Instant? {
        let machines: [MachineStore.Machine]
        do {
            machines = try store.all()
        } catch {
            logger.error("Cannot read the linked machines", metadata: ["error": "\(error)"])
            return .now.advanced(by: .seconds(5))
        }
        var nextLook: Date?
        let wanted = Dictionary(machines.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        for (id, entry) in links where !Self.sameLink(wanted[id], entry.link.machine) {
            entry.task.cancel()
            await entry.link.stop()
            links[id] = nil
            if wanted[id] == nil {
                directory.withLock { $0.forget(machine: id) }
                await hub.forgetRelayed(machine: id)
                broadcast(MachineChanged(machine: MachineStatus(id: id, name: entry.link.ref.name, state: .offline), removed: true))
            }
        }
        for machine in machines where links[machine.id] == nil && machine.id != home.id {
            if machine.state == "revoked" { continue }
            if machine.state == "pending" {
                // Waiting for its owner (``MachinePairing/link``): nothing to run yet. One left by a pairing that
                // never finished (its process ended) goes after 10 minutes; a pairing waits at most 5.
                if machine.addedAt < Date().addingTimeInterval(-Self.pendingLifetime) {
                    _ = try? await store.remove(machine.id)
                } else {
                    let due = machine.addedAt.addingTimeInterval(Self.pendingLifetime)
                    nextLook = min(nextLook ?? due, due)
                }
                continue
            }
            revoked.remove(machine.id)
            let link = MachineLink(
                machine: machine, hub: hub, journal: journal, store: store, directory: directory, logger: logger,
                onChange: { [weak self] change in await self?.changed(change) })
            links[machine.id] = (link, Task { await link.run() })
        }
        return nextLook.map { ContinuousClock.now.advanced(by: .seconds(max(0, $0.timeIntervalSinceNow) + 1)) }
    }

    /// How long a machine row left `pending` by a pairing whose process ended stays (a pairing waits at most 5
    /// minutes).
    static let pendingLifetime: TimeInterval = 600

    /// Whether the table still describes the link as it runs (its state column is the link's own writing).
    private static func sameLink(_ wanted: MachineStore.Machine?, _ running: MachineStore.Machine) -> Bool {
        guard let wanted else { return false }
        return wanted.name == running.name && wanted.addresses == running.addresses && wanted.port == running.port
            && wanted.fingerprint == running.fingerprint && wanted.token == running.token && wanted.clientId == running.clientId
    }

    private func changed(_ change: MachineLink.Change) async {
        switch change {
        case .state(let status):
            broadcast(MachineChanged(machine: status))
        case .revoked(let status):
            revoked.insert(status.id)
            directory.withLock { $0.forget(machine: status.id) }
            await hub.forgetRelayed(machine: status.id)
            broadcast(MachineChanged(machine: status, removed: true))
        }
    }

    /// The fleet: this bridge first, then every linked machine the link works for.
    public func statuses() async -> [MachineStatus] {
        var list = [MachineStatus(id: home.id, name: home.name, state: .online)]
        for (id, entry) in links.sorted(by: { $0.value.link.machine.addedAt < $1.value.link.machine.addedAt }) where !revoked.contains(id) {
            list.append(await entry.link.status)
        }
        return list
    }

    /// The link to a machine, if it is linked and not revoked.
    func link(_ id: String) -> MachineLink? {
        revoked.contains(id) ? nil : links[id]?.link
    }

    /// Every working link.
    func allLinks() -> [MachineLink] {
        links.filter { !revoked.contains($0.key) }.sorted { $0.value.link.machine.addedAt < $1.value.link.machine.addedAt }.map(
            \.value.link)
    }

    /// A fleet session opened: it hears of machines' changes from now on.
    func join(_ session: ClientSession) {
        sessions[session.id] = session
    }

    func leave(_ session: ClientSession) {
        sessions[session.id] = nil
    }

    private func broadcast(_ changed: MachineChanged) {
        for session in sessions.values { session.send(.machineChanged(changed)) }
    }
}
