import BridgeProtocol
import BridgeStore
import Foundation
import HTTPTypes
import Hummingbird

/// The HTTP routes' check of `Authorization: Bearer`: a device token or the shared secret (compared in constant
/// time); a failure counts towards the per-address limit (429 once it is reached, else 401 with a JSON error).
struct BearerCheck: Sendable {
    let sharedSecret: SharedSecretSource
    let devices: DeviceRegistry?
    let rateLimiter: AuthRateLimiter?

    /// nil when the request may go on, else the refusal to send.
    func refusal(_ request: Request, remoteAddress: String) async -> Response? {
        if let header = request.headers[.authorization], let token = BridgeServer.bearerToken(header), await isAuthorized(token) {
            return nil
        }
        let limited = rateLimiter?.isLimited(remoteAddress) ?? false
        rateLimiter?.recordFailure(remoteAddress)
        if limited { return UploadRoute.json(.tooManyRequests, code: .rateLimited, "too many failed authentications from this address") }
        var response = UploadRoute.json(
            .unauthorized, code: .unauthorized, "a device token or the shared secret is required (Authorization: Bearer)")
        response.headers[.wwwAuthenticate] = #"Bearer realm="codex-bridge""#
        return response
    }

    private func isAuthorized(_ token: String) async -> Bool {
        if sharedSecret.matches(token) { return true }
        guard let devices, !Authenticator.isPairingCode(token) else { return false }
        return (try? await devices.authenticate(deviceToken: token, address: nil)) != nil
    }
}
