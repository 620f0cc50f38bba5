/// Who answered an approval: what `approvalResolved` names as the answering device, and what the log names for a
/// notification's action (``ThreadHub/resolveApproval(_:_:by:deviceName:)``).
enum ApprovalAnswerer: Sendable {
    /// A connected client (`approve`): the paired device, or nil for the shared secret.
    case device(String?)
    /// A notification's action: its token's owner (a device id, or `notify:…` for an ntfy/webhook target).
    case notification(owner: String)

    var deviceId: String? {
        switch self {
        case .device(let id): id
        case .notification(let owner): owner.hasPrefix("notify:") ? nil : owner
        }
    }
}
