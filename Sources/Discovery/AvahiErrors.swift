internal import CAvahiClient

/// Turns libavahi error numbers into messages and `DiscoveryError`s.
enum AvahiErrors {
    /// `avahi_strerror`, e.g. "Daemon not running".
    static func message(_ error: Int32) -> String {
        guard let text = avahi_strerror(error) else { return "avahi error \(error)" }
        return String(cString: text)
    }

    /// Maps the error of a failed `avahi_client_new` to what a person should do about it.
    static func clientCreationError(_ error: Int32) -> DiscoveryError {
        switch Int(error) {
        case AVAHI_ERR_NO_DAEMON:
            return .daemonNotRunning
        case AVAHI_ERR_DBUS_ERROR, AVAHI_ERR_DISCONNECTED:
            return .systemBusUnavailable(message(error))
        default:
            return .avahi("avahi_client_new", message(error))
        }
    }
}
