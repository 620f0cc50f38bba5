import BridgeProtocol
import Testing

@testable import BridgeFleet
@testable import BridgeHub

@Suite struct RequestCoverageTests {
    /// Every request kind has exactly one owner: a handler registered with the hub's routes, or the fleet layer
    /// in front of it (the machines). A kind declared without a handler is caught here, not by a phone.
    @Test func everyKindHasExactlyOneOwner() {
        let hub = ThreadHub.routes.kinds
        #expect(hub.isDisjoint(with: MachineAdmin.kinds))
        #expect(hub.isDisjoint(with: FleetRouter.kinds) && MachineAdmin.kinds.isDisjoint(with: FleetRouter.kinds))
        #expect(hub.union(MachineAdmin.kinds).union(FleetRouter.kinds) == Set(RequestKind.allCases))
    }
}
