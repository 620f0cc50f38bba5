import BridgeProtocol
import Testing

@testable import BridgeFleet
@testable import BridgeHub

@Suite struct RequestCoverageTests {
    /// Every request kind has exactly one owner: a handler registered with the pipeline's routes, or the fleet
    /// layer (the machines), as its descriptor's route declares. A kind declared without a handler is caught here,
    /// not by a phone.
    @Test func everyKindHasExactlyOneOwner() {
        let hub = RequestPipeline.routes.kinds
        let fleet = Set(RequestKind.allCases.filter { $0.descriptor.route == .fleet })
        #expect(fleet == MachineAdmin.kinds.union(FleetRouter.kinds))
        #expect(hub.isDisjoint(with: MachineAdmin.kinds))
        #expect(hub.isDisjoint(with: FleetRouter.kinds) && MachineAdmin.kinds.isDisjoint(with: FleetRouter.kinds))
        #expect(hub.union(MachineAdmin.kinds).union(FleetRouter.kinds) == Set(RequestKind.allCases))
    }
}
