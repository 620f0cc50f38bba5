import Foundation
import Logging
import Pairing
import Testing

@Suite("AddressDiscovery")
struct AddressDiscoveryTests {
    static let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

    static let machine: [InterfaceAddress] = [
        .init(interface: "lo", address: "127.0.0.1", family: .ipv4, isLoopback: true),
        .init(interface: "lo", address: "::1", family: .ipv6, isLoopback: true),
        .init(interface: "eth0", address: "fe80::1c2:3ff:fe44:5566", family: .ipv6),
        .init(interface: "eth0", address: "2001:db8:1::20", family: .ipv6),
        .init(interface: "tailscale0", address: "fd7a:115c:a1e0::9", family: .ipv6),
        .init(interface: "eth0", address: "192.168.1.20", family: .ipv4),
        .init(interface: "docker0", address: "172.17.0.1", family: .ipv4),
        .init(interface: "veth12ab", address: "fe80::aa:bbff:fecc:ddee", family: .ipv6),
        .init(interface: "br-0123abcd", address: "172.18.0.1", family: .ipv4),
        .init(interface: "tailscale0", address: "100.101.102.103", family: .ipv4),
        .init(interface: "wlan0", address: "169.254.10.20", family: .ipv4),
        .init(interface: "wlan0", address: "10.0.0.7", family: .ipv4),
        .init(interface: "wlan1", address: "10.0.9.9", family: .ipv4, isUp: false),
        .init(interface: "wlan0", address: "fd00:1::7", family: .ipv6),
        .init(interface: "eth0", address: "192.168.1.20", family: .ipv4),  // listed twice: offered once
    ]

    @Test func selectionFiltersMarksAndOrders() {
        let chosen = AddressDiscovery.select(Self.machine, magicDNSName: "box.tail1234.ts.net")
        #expect(
            chosen.map(\.host) == [
                "192.168.1.20", "10.0.0.7",  // LAN IPv4, interface order
                "100.101.102.103",  // Tailscale IPv4
                "box.tail1234.ts.net",  // MagicDNS
                "2001:db8:1::20", "fd00:1::7",  // LAN IPv6 (global, ULA)
                "fd7a:115c:a1e0::9",  // Tailscale IPv6
            ])
        #expect(chosen.filter(\.isTailscale).map(\.host) == ["100.101.102.103", "box.tail1234.ts.net", "fd7a:115c:a1e0::9"])
        #expect(chosen.map(\.kind) == [.lanIPv4, .lanIPv4, .tailscaleIPv4, .magicDNS, .lanIPv6, .lanIPv6, .tailscaleIPv6])
        #expect(chosen[4].urlHost == "[2001:db8:1::20]")
    }

    @Test func tailscaleRangesAreMarkedOnAnyInterface() {
        let chosen = AddressDiscovery.select(
            [
                .init(interface: "utun3", address: "100.64.0.1", family: .ipv4),
                .init(interface: "utun3", address: "fd7a:115c:a1e0:ab12::1", family: .ipv6),
                .init(interface: "eth0", address: "100.128.0.1", family: .ipv4),  // just outside 100.64/10
            ], magicDNSName: nil)
        #expect(chosen.map(\.host) == ["100.128.0.1", "100.64.0.1", "fd7a:115c:a1e0:ab12::1"])
        #expect(chosen.map(\.isTailscale) == [false, true, true])
    }

    @Test func advertiseOverridesDiscovery() async throws {
        let discovery = AddressDiscovery(
            interfaces: { Self.machine }, tailscale: FixedTailscale(name: "box.ts.net"), logger: Self.logger)
        let chosen = try await discovery.candidates(advertise: ["bridge.example.org", "[fd7a:115c:a1e0::9]", "bridge.example.org"])
        #expect(chosen.map(\.host) == ["bridge.example.org", "fd7a:115c:a1e0::9"])
        #expect(chosen.map(\.kind) == [.advertised, .advertised])
        #expect(chosen.map(\.isTailscale) == [false, true])
        await #expect(throws: AddressDiscoveryError.invalidAdvertisedHost("bad host/x")) {
            try await discovery.candidates(advertise: ["bad host/x"])
        }
    }

    @Test func tailscaleBindAddresses() throws {
        let discovery = AddressDiscovery(interfaces: { Self.machine }, tailscale: FixedTailscale(name: nil), logger: Self.logger)
        #expect(try discovery.tailscaleBindAddresses() == ["100.101.102.103", "fd7a:115c:a1e0::9"])

        let noTailscale = AddressDiscovery(
            interfaces: { Self.machine.filter { $0.interface != "tailscale0" } }, tailscale: FixedTailscale(name: nil),
            logger: Self.logger)
        #expect(throws: AddressDiscoveryError.noTailscaleInterface) { try noTailscale.tailscaleBindAddresses() }
        #expect("\(AddressDiscoveryError.noTailscaleInterface)" == "no Tailscale interface found (is tailscaled running? `tailscale up`)")
    }

    @Test func realInterfacesCanBeListed() throws {
        let addresses = try InterfaceAddress.system()
        #expect(addresses.contains { $0.isLoopback })
        // Whatever this machine has, selection never offers loopback or link-local.
        for candidate in AddressDiscovery.select(addresses, magicDNSName: nil) {
            #expect(!candidate.host.hasPrefix("127.") && candidate.host != "::1" && !candidate.host.hasPrefix("fe80"))
        }
    }

    // MARK: The tailscale CLI, faked on PATH

    @Test func magicDNSNameFromFakeCLI() async throws {
        let fake = try FakeTailscale(
            script: """
                #!/bin/sh
                [ "$1 $2" = "status --json" ] || exit 2
                cat <<'JSON'
                {"Version":"1.80.0","BackendState":"Running","Self":{"DNSName":"box.tail1234.ts.net.","TailscaleIPs":["100.101.102.103"]},"Peer":{}}
                JSON
                """)
        defer { fake.cleanup() }
        let cli = TailscaleCLI(environment: fake.environment, logger: Self.logger)
        #expect(await cli.magicDNSName() == "box.tail1234.ts.net")

        let discovery = AddressDiscovery(interfaces: { Self.machine }, tailscale: cli, logger: Self.logger)
        let chosen = try await discovery.candidates()
        #expect(chosen.first?.host == "192.168.1.20")
        #expect(chosen.contains(CandidateAddress(host: "box.tail1234.ts.net", kind: .magicDNS, isTailscale: true)))
    }

    @Test(arguments: [
        "#!/bin/sh\nexit 1\n",  // tailscaled not running: non-zero exit
        "#!/bin/sh\necho 'not json'\n",
        "#!/bin/sh\necho '{\"BackendState\":\"Stopped\",\"Self\":{\"DNSName\":\"box.ts.net.\"}}'\n",
        "#!/bin/sh\necho '{\"BackendState\":\"Running\",\"Self\":{\"DNSName\":\"\"}}'\n",
    ])
    func unusableCLIAnswersGiveNoName(script: String) async throws {
        let fake = try FakeTailscale(script: script)
        defer { fake.cleanup() }
        #expect(await TailscaleCLI(environment: fake.environment, logger: Self.logger).magicDNSName() == nil)
    }

    @Test func hangingCLIIsCutOffByTheTimeout() async throws {
        // It would hang for two minutes; cut off at 300 ms, it must be back well before that even when the test
        // pool is starved for seconds by blocking neighbours (seen: 11 s on a loaded 2-core machine).
        let fake = try FakeTailscale(script: "#!/bin/sh\nsleep 120\n")
        defer { fake.cleanup() }
        let started = ContinuousClock.now
        let cli = TailscaleCLI(environment: fake.environment, timeout: .milliseconds(300), logger: Self.logger)
        #expect(await cli.magicDNSName() == nil)
        #expect(ContinuousClock.now - started < .seconds(60))
    }

    @Test func absentCLIGivesNoName() async throws {
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("empty-path-\(UUID().uuidString)")
        let cli = TailscaleCLI(environment: ["PATH": empty.path], logger: Self.logger)
        #expect(await cli.magicDNSName() == nil)
    }

    @Test func largeStatusOutputIsRead() async throws {
        // Far more than a pipe buffer: the child must not block on its output.
        let fake = try FakeTailscale(
            script: """
                #!/bin/sh
                printf '{"BackendState":"Running","Self":{"DNSName":"big.ts.net."},"Pad":"'
                head -c 300000 /dev/zero | tr '\\0' 'x'
                printf '"}'
                """)
        defer { fake.cleanup() }
        // A generous deadline: what is tested is that the output cannot block the child, not the machine's speed.
        let cli = TailscaleCLI(environment: fake.environment, timeout: .seconds(30), logger: Self.logger)
        #expect(await cli.magicDNSName() == "big.ts.net")
    }
}

/// A `TailscaleStatusProvider` that answers a fixed name.
struct FixedTailscale: TailscaleStatusProvider {
    let name: String?
    func magicDNSName() async -> String? { name }
}

/// A directory holding an executable `tailscale` script, and an environment whose PATH is that directory
/// followed by the system's (the script uses `sh`, `cat`, `head`).
struct FakeTailscale {
    let directory: URL
    let environment: [String: String]

    init(script: String) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("fake-tailscale-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent("tailscale")
        try Data(script.utf8).write(to: file)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: file.path)
        environment = ["PATH": directory.path + ":/usr/bin:/bin"]
    }

    func cleanup() {
        try? FileManager.default.removeItem(at: directory)
    }
}
