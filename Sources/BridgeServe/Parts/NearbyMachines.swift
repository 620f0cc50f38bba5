import BridgeProtocol
import Discovery

/// The bridges found on this workstation's network, for the machine admin's `listMachines {nearby}`.
package enum NearbyMachines {
    /// What mDNS finds in 2 s; none when avahi is not there.
    @Sendable package static func browse() async -> [NearbyMachine] {
        guard let found = try? await MDNSBrowser.browse(timeout: .seconds(2)) else { return [] }
        return found.map { bridge in
            NearbyMachine(
                id: bridge.id, name: bridge.name, host: bridge.addresses.first ?? bridge.host, port: bridge.port, tls: bridge.tls,
                fingerprint: bridge.txt["fp"])
        }
    }
}
