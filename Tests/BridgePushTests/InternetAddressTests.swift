import BridgePush
import Testing

/// Which addresses a push endpoint may reach.
@Suite struct InternetAddressTests {
    @Test(arguments: [
        "127.0.0.1", "127.8.9.10", "10.0.0.1", "172.16.0.1", "172.31.255.255", "192.168.1.1", "169.254.169.254", "100.64.0.1",
        "0.0.0.0", "255.255.255.255", "224.0.0.251", "192.0.2.1", "198.51.100.7", "203.0.113.9", "198.18.0.1",
        "::", "::1", "fe80::1", "fc00::1", "fd12:3456::1", "ff02::fb", "::ffff:127.0.0.1", "::ffff:10.0.0.1", "::10.0.0.1",
        "64:ff9b::a9fe:a9fe", "2002:c0a8:0101::1", "2001:db8::1", "2001::1",
    ])
    func nonPublicAddressesAreRefused(_ text: String) throws {
        let address = try #require(InternetAddress(literal: text))
        #expect(!address.isPublicUnicast, "\(text)")
    }

    @Test(arguments: ["8.8.8.8", "1.1.1.1", "172.32.0.1", "100.128.0.1", "2606:4700::1111", "::ffff:8.8.8.8", "2002:0808:0808::1"])
    func publicAddressesAreAllowed(_ text: String) throws {
        let address = try #require(InternetAddress(literal: text))
        #expect(address.isPublicUnicast, "\(text)")
    }

    @Test func literalsParseWithOrWithoutBrackets() {
        #expect(InternetAddress(literal: "[::1]")?.description == "::1")
        #expect(InternetAddress(literal: "192.0.2.1")?.bytes == [192, 0, 2, 1])
        #expect(InternetAddress(literal: "push.example") == nil)
    }

    /// The lookup is checked too: a name resolving to loopback is refused, an allowed host is not looked up.
    @Test func aNameIsJudgedByWhatItResolvesTo() async throws {
        let policy = PushEndpointPolicy()
        await #expect(throws: PushError.self) { try await policy.destination(of: "https://localhost:8443/push") }
        let allowed = PushEndpointPolicy(allowedHosts: ["localhost"])
        let destination = try await allowed.destination(of: "http://localhost:8080/push")
        #expect(destination.address == nil)
        let literal = try await policy.destination(of: "https://8.8.8.8/x")
        #expect(literal.address?.description == "8.8.8.8")
    }
}
