import Testing

@testable import Discovery

@Suite struct DiscoveredBridgeCollectorTests {
    private func service(_ name: String, _ address: String, port: Int = 9000) -> ResolvedService {
        ResolvedService(
            name: name, type: "_codexd._tcp", domain: "local", host: "vm.local", address: address, port: port,
            txt: ["version": "1", "id": "srv_1", "tls": "0"])
    }

    @Test func mergesAddressesOfOneInstance() {
        var collector = DiscoveredBridgeCollector()
        collector.add(service("a (codex-bridge)", "fe80::1%eth0"))
        collector.add(service("a (codex-bridge)", "127.0.0.1"))
        collector.add(service("a (codex-bridge)", "192.168.1.4"))
        collector.add(service("a (codex-bridge)", "192.168.1.4"))
        let bridges = collector.bridgesByName
        #expect(bridges.count == 1)
        let bridge = try! #require(bridges.first)
        #expect(bridge.addresses == ["192.168.1.4", "127.0.0.1", "fe80::1%eth0"])
        #expect(bridge.version == 1)
        #expect(bridge.id == "srv_1")
        #expect(bridge.tls == false)
        #expect(bridge.port == 9000)
    }

    @Test func keepsDistinctInstancesApart() {
        var collector = DiscoveredBridgeCollector()
        collector.add(service("b (codex-bridge)", "127.0.0.1", port: 2))
        collector.add(service("a (codex-bridge)", "127.0.0.1", port: 1))
        #expect(collector.bridgesByName.map(\.name) == ["a (codex-bridge)", "b (codex-bridge)"])
    }

    @Test func missingTXTLeavesFieldsEmpty() {
        let bridge = DiscoveredBridge(name: "x", host: "h", addresses: [], port: 1, txt: ["version": "two"])
        #expect(bridge.version == nil)
        #expect(bridge.id == nil)
    }
}
