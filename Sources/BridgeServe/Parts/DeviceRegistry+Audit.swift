import BridgeOps
import BridgeProtocol
import BridgeStore
import Foundation
import Logging

extension DeviceRegistry {
    /// Records a decision taken at the workstation (`devices allow`, serve's own y/N question) in the audit log;
    /// a failure to write is a warning on stderr, never the decision's.
    package func auditWorkstation(kind: String, deviceId: String?, detail: String?, name: String? = nil) async {
        let auditor = Auditor(log: AuditLog(database: database), logger: Logger(label: "codex-bridge.audit"))
        let entry = auditor.entry(actor: .workstation, deviceId: deviceId, deviceName: name, kind: kind, outcome: "ok", detail: detail)
        do {
            try await auditor.log.record(entry)
        } catch {
            Terminal.warn("warning: cannot write the audit log: \(error)")
        }
    }
}
