import BridgeProtocol
import Foundation
import Logging

/// Builds every audit entry the bridge writes, stamped with the log's clock, and writes it: a client's request and
/// its answer, a pairing, an upload, a notification's answer, the desk's, a workstation command. A failure to write
/// is logged (its kind, never its text), never the caller's.
public struct Auditor: Sendable {
    /// Where the entries go.
    public let log: AuditLog
    let logger: Logger

    public init(log: AuditLog, logger: Logger) {
        self.log = log
        self.logger = logger
    }

    /// An entry stamped now.
    public func entry(
        actor: AuditActor, deviceId: String? = nil, deviceName: String? = nil, address: String? = nil, kind: String,
        threadId: String? = nil, outcome: String, detail: String? = nil, onBehalfOf: OnBehalfOf? = nil
    ) -> AuditEntry {
        AuditEntry(
            at: log.timestamp, actor: actor, deviceId: deviceId, deviceName: deviceName, address: address, kind: kind,
            threadId: threadId, outcome: outcome, detail: detail, onBehalfOf: onBehalfOf)
    }

    /// The entry for a request a client made (a device's, else the shared secret's) and the answer it got.
    public func entry(for request: BridgeRequest, answer: ServerMessage, deviceId: String?, address: String?) -> AuditEntry {
        var threadId = request.threadId
        var outcome = "ok"
        switch answer {
        case .error(let error): outcome = error.code.rawValue
        case .response(_, .threadStarted(let started)): threadId = started.threadId
        case .response(_, .threadForked(let forked)): threadId = forked.threadId
        case .response(_, .accepted(let accepted)): threadId = threadId ?? accepted.threadId
        default: break
        }
        var response: BridgeResponse?
        if case .response(_, let answered) = answer { response = answered }
        var detail = request.payload.auditDetail(answer: response)
        if case .error(let error) = answer, let scope = error.scope { detail = "needs \(scope.rawValue)" }
        return entry(
            actor: deviceId == nil ? .sharedSecret : .device, deviceId: deviceId, address: address, kind: request.kind,
            threadId: threadId, outcome: outcome, detail: detail, onBehalfOf: request.onBehalfOf)
    }

    /// Writes `entry`; a failure is logged.
    public func record(_ entry: AuditEntry) async {
        await record(entry, keeping: nil)
    }

    /// Writes `entry` and keeps a request's `answer` for its retries, in one transaction; a failure is logged.
    public func record(_ entry: AuditEntry?, keeping answer: ClientMemory.AnswerRow?) async {
        do {
            try await log.record(entry, keeping: answer)
        } catch {
            logger.warning(
                "Cannot write the audit log",
                metadata: ["bridge.audit.kind": "\(entry?.kind ?? answer?.kind ?? "")", "error.type": "\(type(of: error))"])
        }
    }

    /// Builds an entry stamped now and writes it.
    public func record(
        actor: AuditActor, deviceId: String? = nil, deviceName: String? = nil, address: String? = nil, kind: String,
        threadId: String? = nil, outcome: String, detail: String? = nil
    ) async {
        await record(
            entry(
                actor: actor, deviceId: deviceId, deviceName: deviceName, address: address, kind: kind, threadId: threadId,
                outcome: outcome, detail: detail))
    }
}
