import BridgeProtocol
import BridgeStore
import Foundation

/// `requestScopes`: a paired device asks the workstation for scopes it lacks (issue 37 item 1). The request waits
/// in the database with a check code the phone shows; `codex-bridge devices allow ID --check CODE` grants it (and
/// the device's connections get the scopes within 2 s, as after `devices scope`), serve's terminal shows it.
/// Least privilege stays: nothing is granted from the phone.
struct ScopeAsking {
    let registry: DeviceRegistry

    func ask(_ ask: RequestScopes, deviceId: String?) async throws -> ScopeRequestIssued {
        guard let deviceId else { throw HubError(.badRequest, "the shared secret holds every scope already") }
        let scopes: Scopes
        do {
            scopes = try Scopes(parsing: ask.scopes.joined(separator: ","))
        } catch {
            throw HubError(.badRequest, error.message)
        }
        do {
            let request = try await registry.requestScopes(id: deviceId, scopes: scopes)
            return ScopeRequestIssued(
                deviceId: deviceId, scopes: request.scopes, check: request.checkCode, expiresAt: request.expiresAt.timeIntervalSince1970)
        } catch let error as DeviceRegistryError {
            switch error.code {
            case .alreadyHeld: throw HubError(.conflict, error.message)
            case .deviceNotFound: throw HubError(.notFound, error.message)
            default: throw HubError(.badRequest, error.message)
            }
        }
    }
}
