import BridgeProtocol
import BridgeStore
import Foundation

/// The admin's machine requests (`listMachines`, `addMachine`, `removeMachine`, `renameMachine`): the same store
/// and pairing as `codex-bridge machines`, beside the hub (they use none of its state). The running links follow
/// the table within a second (``FleetLinks``).
public struct MachineAdmin: Sendable {
    /// The bridges this one finds on its network (mDNS), for `listMachines {nearby: true}`.
    public typealias Browse = @Sendable () async -> [NearbyMachine]

    let store: MachineStore
    let home: MachineRef
    let browse: Browse

    public init(store: MachineStore, home: MachineRef, browse: @escaping Browse = { [] }) {
        self.store = store
        self.home = home
        self.browse = browse
    }

    /// The kinds it answers (in front of the hub, which has no handler for them).
    static let kinds: Set<RequestKind> = [.listMachines, .addMachine, .removeMachine, .renameMachine]

    /// Answers one machine request.
    /// - Throws: ``ErrorMessage`` (with its code) for a refusal.
    func answer(_ request: BridgeRequest, id: String) async throws(ErrorMessage) -> MachineList {
        do {
            switch request.payload {
            case let asked as ListMachines:
                var answer = try listed()
                if asked.nearby == true {
                    let linked = Set(answer.machines.map(\.id) + [home.id])
                    answer.nearby = await browse().filter { $0.id.map { !linked.contains($0) } ?? true }
                }
                return answer
            case let add as AddMachine:
                let target = try MachinePairing.target(
                    url: add.url, host: add.host, port: add.port, fingerprint: add.fingerprint, code: add.code)
                _ = try await MachinePairing.link(target, home: home, name: add.name, store: store)
            case let remove as RemoveMachine:
                guard try await store.remove(remove.machineId) else { throw unknown(remove.machineId, id: id) }
            case let rename as RenameMachine:
                try MachinePairing.checkName(rename.name)
                guard try await store.rename(rename.machineId, to: rename.name) else { throw unknown(rename.machineId, id: id) }
            default:
                throw ErrorMessage(id: id, code: .internal, message: "not a machine request")
            }
            return try listed()
        } catch let error as ErrorMessage {
            throw error
        } catch let error as MachinePairing.Failure {
            throw ErrorMessage(id: id, code: .badRequest, message: error.description)
        } catch {
            throw ErrorMessage(id: id, code: .internal, message: "\(error)")
        }
    }

    private func listed() throws -> MachineList {
        MachineList(
            machines: try store.all().map { machine in
                LinkedMachine(
                    id: machine.id, name: machine.name, address: machine.address, state: machine.state,
                    addedAt: machine.addedAt.timeIntervalSince1970,
                    error: machine.errorCode.map { WireError(code: BridgeErrorCode($0), message: machine.errorMessage ?? "") })
            })
    }

    private func unknown(_ machineId: String, id: String) -> ErrorMessage {
        ErrorMessage(id: id, code: .notFound, message: "no linked machine \(machineId.prefix(64))")
    }
}
