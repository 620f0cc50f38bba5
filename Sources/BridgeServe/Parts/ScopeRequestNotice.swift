import BridgeOps
import BridgeProtocol
import BridgeStore
import Foundation
import Logging
import ServiceLifecycle

/// serve's terminal and log say when a paired device asks for more scopes (`requestScopes`, issue 37 item 1): its
/// name, what it asks for, the check code its phone shows and the command that grants it. The request is in the
/// database (whichever process decides it), so this looks there whenever the database's ``StateChanges`` fires.
package struct ScopeRequestNotice: Service {
    package let registry: DeviceRegistry
    /// Whether stdout is a terminal (the notice is printed there; the log has it either way).
    package let terminal: Bool
    package let logger: Logger

    package func run() async throws {
        await cancelWhenGracefulShutdown {
            var told: Set<String> = []
            var seen = registry.database.changes.generation
            while !Task.isCancelled {
                if let requests = try? await registry.scopeRequests() {
                    let keys = Set(requests.map { $0.deviceId + "/" + $0.checkCode })
                    for request in requests where !told.contains(request.deviceId + "/" + request.checkCode) {
                        await announce(request)
                    }
                    told = keys
                }
                seen = await registry.database.changes.wait(after: seen)
            }
        }
    }

    private func announce(_ request: ScopeRequestRecord) async {
        let device = try? await registry.device(id: request.deviceId)
        let name = ControlCharacters.escaped(device?.name ?? "?")
        logger.notice(
            "A device asks for more scopes",
            metadata: ["bridge.device.id": "\(request.deviceId)", "bridge.device.scopes": "\(request.scopes)"])
        guard terminal else { return }
        let text = """

            \(name) (device \(request.deviceId)) asks to also: \(request.scopes) (it may now: \(device?.scopes.description ?? "-")).
            Check code \(request.checkCode): if the phone shows the same, run
                codex-bridge devices allow \(request.deviceId) --check CODE-THE-PHONE-SHOWS
            (or `codex-bridge devices deny \(request.deviceId)`). It waits until \(request.expiresAt.formatted(date: .omitted, time: .standard)).

            """
        Terminal.write(text)
    }
}
