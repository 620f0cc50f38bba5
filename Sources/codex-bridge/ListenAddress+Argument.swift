import ArgumentParser
import BridgeServe

/// `--listen` and the settings that take an address (``ListenAddress/init(argument:)`` is the grammar).
extension ListenAddress: ExpressibleByArgument {
    /// Parses `--listen`, saying what is wrong (for `@Option(transform:)`).
    static func parse(_ argument: String) throws -> ListenAddress {
        if argument.contains("://") {
            throw ValidationError(
                "--listen takes HOST:PORT, without a scheme: write \(argument.split(separator: "/").dropFirst().first.map(String.init) ?? "HOST:PORT"), not \(argument)"
            )
        }
        guard let address = ListenAddress(argument: argument) else {
            throw ValidationError(
                "--listen \(argument) is not an address: write HOST:PORT, [IPv6]:PORT, :PORT, HOST (port 9099) or tailscale[:PORT]")
        }
        return address
    }
}
