/// Who a linked home bridge makes a request for (`onBehalfOf` beside `kind` and `id`): the phone or notification
/// behind the link. The receiving bridge records it in its audit log **as reported** by the link (the audit row's
/// device stays the link's); it grants nothing.
public struct OnBehalfOf: Codable, Sendable, Hashable {
    /// `device`, `sharedSecret` or `notification`, at the home bridge.
    public var actor: AuditActor
    /// The home bridge's id of the device, when it is one.
    public var deviceId: String?
    /// Its name there.
    public var name: String?

    public init(actor: AuditActor, deviceId: String? = nil, name: String? = nil) {
        self.actor = actor
        self.deviceId = deviceId
        self.name = name
    }

    /// Longest `deviceId` and `name`, in bytes.
    public static let maxDeviceIdBytes = 64
    public static let maxNameBytes = 100

    /// Why it cannot be recorded (too long, control characters), or nil.
    public var problem: String? {
        for (member, value, limit) in [("deviceId", deviceId, Self.maxDeviceIdBytes), ("name", name, Self.maxNameBytes)] {
            guard let value else { continue }
            if value.utf8.count > limit { return "onBehalfOf.\(member) is longer than \(limit) bytes" }
            if value.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) {
                return "onBehalfOf.\(member) has control characters"
            }
        }
        return nil
    }
}
