import Testing

@testable import Discovery

@Suite struct MDNSAdvertisementTests {
    @Test func bridgeTXTHasVersionIDAndTLS() {
        let ad = MDNSAdvertisement(name: "studio", port: 8765, serverID: "srv_123")
        #expect(ad.type == "_codexd._tcp")
        #expect(ad.txt == ["version": "1", "id": "srv_123", "tls": "0"])
        #expect(ad.txtEntries == ["id=srv_123", "tls=0", "version=1"])
    }

    @Test func tlsAddsFingerprint() {
        let ad = MDNSAdvertisement(
            name: "studio", port: 443, serverID: "x", tls: true, certificateFingerprint: "sha256:ab")
        #expect(ad.txt["tls"] == "1")
        #expect(ad.txt["fp"] == "sha256:ab")
    }

    @Test(arguments: [
        ("studio", "studio (codex-bridge)"),
        ("  my mac  ", "my mac (codex-bridge)"),
        ("studio (codex-bridge)", "studio (codex-bridge)"),
        ("Ünïcödé #1", "Ünïcödé #1 (codex-bridge)"),
    ])
    func instanceName(name: String, expected: String) {
        #expect(MDNSAdvertisement.instanceName(for: name) == expected)
    }

    @Test func emptyNameFallsBackToHostName() {
        let name = MDNSAdvertisement.instanceName(for: "   ")
        #expect(name == MDNSAdvertisement.defaultName() + " (codex-bridge)")
        #expect(!MDNSAdvertisement.defaultName().contains("."))
    }

    @Test func longNamesAreCutToOneDNSLabel() {
        let name = MDNSAdvertisement.instanceName(for: String(repeating: "é", count: 60))
        #expect(name.utf8.count <= 63)
        #expect(name.hasSuffix(" (codex-bridge)"))
        #expect(name.hasPrefix("éééé"))
    }

    @Test func validAdvertisementPasses() throws {
        try MDNSAdvertisement(name: "a", port: 1, serverID: "id").validate()
    }

    @Test func invalidAdvertisementsAreRejected() {
        #expect(throws: DiscoveryError.self) {
            try MDNSAdvertisement(name: "a", port: 0, serverID: "id").validate()
        }
        #expect(throws: DiscoveryError.self) {
            try MDNSAdvertisement(name: "a", port: 70000, serverID: "id").validate()
        }
        #expect(throws: DiscoveryError.self) {
            try MDNSAdvertisement(name: "a", type: "codexd", port: 1, txt: [:]).validate()
        }
        #expect(throws: DiscoveryError.self) {
            try MDNSAdvertisement(name: "a", port: 1, txt: ["a=b": "c"]).validate()
        }
        #expect(throws: DiscoveryError.self) {
            try MDNSAdvertisement(name: "a", port: 1, txt: ["k": String(repeating: "v", count: 254)]).validate()
        }
    }

    @Test func daemonErrorNamesTheFix() {
        let text = DiscoveryError.daemonNotRunning.description
        #expect(text.contains("avahi-daemon is not running"))
        #expect(text.contains("sudo apt install avahi-daemon"))
        #expect(text.contains("systemctl enable --now avahi-daemon"))
        #expect(DiscoveryError.daemonNotRunning.isDaemonUnavailable)
    }
}
