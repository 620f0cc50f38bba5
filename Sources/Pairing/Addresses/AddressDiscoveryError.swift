/// Why addresses could not be listed or chosen.
public struct AddressDiscoveryError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure.
    public enum Code: Sendable, Hashable {
        /// `getifaddrs` failed.
        case interfaces
        /// `--listen tailscale` on a machine without a Tailscale address.
        case noTailscaleInterface
        /// An `--advertise` value is empty or contains characters no host has.
        case invalidAdvertisedHost
    }

    /// The kind of failure.
    public let code: Code
    /// A message for a person.
    public let message: String

    public var description: String { message }

    /// Listing the interfaces failed.
    public static func interfaces(_ reason: String) -> AddressDiscoveryError {
        AddressDiscoveryError(code: .interfaces, message: "cannot list network interfaces: \(reason)")
    }

    /// No Tailscale address to bind.
    public static let noTailscaleInterface = AddressDiscoveryError(
        code: .noTailscaleInterface, message: "no Tailscale interface found (is tailscaled running? `tailscale up`)")

    /// An unusable `--advertise` value.
    public static func invalidAdvertisedHost(_ host: String) -> AddressDiscoveryError {
        AddressDiscoveryError(code: .invalidAdvertisedHost, message: "cannot advertise \"\(host)\": not a host name or IP address")
    }
}
