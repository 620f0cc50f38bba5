import BridgeHub
import BridgeProtocol
import BridgePush
import BridgeStore
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// `POST /push/action {token, decision}`: answers an approval from a notification's button. The single-use
/// token is the credential (an `Authorization: Bearer` device token, when sent, must be the token's device).
/// 200 `{"ok":true,…}`; 422 for a bad body (not 400: the first 400 on a connection is taken for a malformed
/// request and the connection closed after its head, see ``PreAuthGuard``); 403 for a used, expired, unknown or foreign token; 409 when the
/// approval was answered meanwhile; 403 `forbidden` (with `scope`) when the device may no longer approve. Nothing
/// changes on a refusal. Answers and refusals are audited (actor `notification`).
public struct PushActionRoute: Sendable {
    /// Where action tokens are redeemed (the push coordinator).
    let tokens: any ActionTokenRedeeming
    let devices: DeviceRegistry?
    /// Where answers and refusals are recorded (actor `notification`).
    let auditor: Auditor
    /// Who answers: the hub, or with linked machines the one that sends their approvals to them.
    let answerer: any NotificationAnswering

    /// Largest accepted body.
    static let maxBody = 4096

    package init(tokens: any ActionTokenRedeeming, devices: DeviceRegistry?, auditor: Auditor, answerer: any NotificationAnswering) {
        self.tokens = tokens
        self.devices = devices
        self.auditor = auditor
        self.answerer = answerer
    }

    /// Adds the route; an `Authorization` header, when sent, goes through the same ``CredentialCheck`` as
    /// every other route (a bad one counts towards the per-address limit, 429 once it is reached).
    public func addRoutes(to router: some RouterMethods<BridgeRequestContext>, authenticator: CredentialCheck) {
        router.post("/push/action") { request, context in
            await self.respond(to: request, remoteAddress: context.remoteAddress, authenticator: authenticator)
        }
    }

    struct Body: Decodable {
        var token: String
        var decision: String
        var approvalId: String?
    }

    func respond(to request: Request, remoteAddress: String, authenticator: CredentialCheck) async -> Response {
        let response = await answer(request, remoteAddress: remoteAddress, authenticator: authenticator)
        BridgeMetrics.shared.pushAction(answered: response.status == .ok)
        return response
    }

    func answer(_ request: Request, remoteAddress: String, authenticator: CredentialCheck) async -> Response {
        var request = request
        let buffer: ByteBuffer
        do {
            buffer = try await request.collectBody(upTo: Self.maxBody)
        } catch {
            return Self.error(.contentTooLarge, .tooLarge, "the body must be at most \(Self.maxBody) bytes")
        }
        guard let body = try? JSONDecoder().decode(Body.self, from: Data(buffer.readableBytesView)) else {
            return Self.error(
                .unprocessableContent, .badRequest,
                "the body must be a JSON object {\"token\": string, \"decision\": \"accept\" or \"decline\"}")
        }
        guard let decision = ApprovalDecision(rawValue: body.decision), decision != .cancel else {
            return Self.error(.unprocessableContent, .badRequest, "decision must be accept, acceptForSession or decline")
        }
        var presenter: String?
        if let header = request.headers[.authorization] {
            let principal: HTTPPrincipal
            do {
                principal = try await authenticator.authenticate(header, remoteAddress: remoteAddress).principal
            } catch {
                guard error.status == .tooManyRequests else {
                    return Self.error(.forbidden, .unauthorized, "the Authorization header is not a device token of this bridge")
                }
                return error.response
            }
            guard let device = principal.deviceId else {
                return Self.error(.forbidden, .unauthorized, "the Authorization header is not a device token of this bridge")
            }
            presenter = device
        }
        guard let binding = await tokens.redeem(token: body.token, presenter: presenter),
            body.approvalId == nil || body.approvalId == binding.approvalId
        else {
            return Self.error(.forbidden, .unauthorized, "the action token is used, expired, unknown or not this device's")
        }
        let deviceId = binding.owner.hasPrefix("notify:") ? nil : binding.owner
        func record(_ outcome: String, detail: String, threadId: String? = nil) async {
            await auditor.record(
                actor: .notification, deviceId: deviceId,
                deviceName: deviceId == nil ? "notification target \(binding.owner.dropFirst("notify:".count))" : nil,
                address: remoteAddress, kind: "approve", threadId: threadId, outcome: outcome, detail: detail)
        }
        if let deviceId, let devices {
            // A device revoked since the notification was sent cannot answer with it, nor one that may no longer approve.
            let scopes: Scopes?
            do {
                scopes = try await devices.scopes(among: [deviceId])[deviceId]
            } catch {
                return Self.error(.internalServerError, .internal, "internal error")
            }
            guard let scopes else {
                await record("unauthorized", detail: "device revoked")
                return Self.error(.forbidden, .unauthorized, "the device this token was sent to is revoked")
            }
            if let refusal = ScopeGate.check(.approve, scopes: scopes, principal: .device(id: deviceId), what: "a notification's answer") {
                await record("forbidden", detail: "needs approve")
                return BridgeHTTPError.forbidden(refusal).response
            }
        }
        do {
            let accepted = try await answerer.answerFromNotification(
                approvalId: binding.approvalId, decision: decision, owner: binding.owner)
            await record("ok", detail: "\(decision.rawValue) \(binding.approvalId)", threadId: accepted.threadId)
            let text =
                #"{"approvalId":"# + JSONValue.string(accepted.approvalId ?? binding.approvalId).jsonText + #","decision":""#
                + decision.rawValue + #"","ok":true}"#
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: text)))
        } catch let error as HubError {
            let status: HTTPResponse.Status = error.code == .approvalNotPending ? .conflict : .forbidden
            return Self.error(status, error.code, error.message)
        } catch {
            return Self.error(.internalServerError, .internal, "internal error")
        }
    }

    static func error(_ status: HTTPResponse.Status, _ code: BridgeErrorCode, _ message: String) -> Response {
        BridgeHTTPError.json(status, code: code, message)
    }
}
