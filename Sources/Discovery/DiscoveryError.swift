/// Why browsing or advertising over mDNS failed; `description` says what to do about it.
public struct DiscoveryError: Error, Sendable, Hashable, CustomStringConvertible {
    private enum Code: Sendable, Hashable {
        case daemonNotRunning
        case systemBusUnavailable
        case invalidAdvertisement
        case avahi
    }

    private let code: Code

    /// A one-line explanation for a person, naming the fix where there is one.
    public let description: String

    private init(_ code: Code, _ description: String) {
        self.code = code
        self.description = description
    }

    /// The fix printed when avahi-daemon is missing; shared by the publisher's warning and the browser's error.
    static let installHint =
        "install and start it: sudo apt install avahi-daemon && sudo systemctl enable --now avahi-daemon"

    /// avahi-daemon is not running (or not installed) on this machine.
    public static let daemonNotRunning = DiscoveryError(
        .daemonNotRunning,
        "avahi-daemon is not running; \(installHint)"
    )

    /// The D-Bus system bus, through which libavahi-client talks to avahi-daemon, cannot be reached.
    public static func systemBusUnavailable(_ detail: String) -> DiscoveryError {
        DiscoveryError(
            .systemBusUnavailable,
            "cannot reach avahi-daemon over the D-Bus system bus (\(detail)); install and start both: "
                + "sudo apt install dbus avahi-daemon && sudo systemctl enable --now avahi-daemon"
        )
    }

    /// The advertisement cannot be published as given (bad port, TXT entry, name).
    public static func invalidAdvertisement(_ detail: String) -> DiscoveryError {
        DiscoveryError(.invalidAdvertisement, "invalid mDNS advertisement: \(detail)")
    }

    /// libavahi-client reported an error.
    public static func avahi(_ operation: String, _ detail: String) -> DiscoveryError {
        DiscoveryError(.avahi, "avahi: \(operation) failed: \(detail)")
    }

    /// True for the errors that go away once avahi-daemon (or the system bus) is started.
    public var isDaemonUnavailable: Bool {
        code == .daemonNotRunning || code == .systemBusUnavailable
    }
}
