/// Who a connection is authenticated as.
public enum Principal: Sendable, Hashable {
    /// A client that knows the shared secret.
    case sharedSecret
    /// A paired device.
    case device(id: String)

    /// The device id, when a device.
    public var deviceId: String? {
        if case .device(let id) = self { return id }
        return nil
    }
}
