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

    /// The machine step by kind: the fleet's own kinds for any session; for a fleet session a linked thread's
    /// request goes there, its subscription is served here, its preview refused; everything else is this
    /// bridge's (a session that did not ask for the fleet, or a thread of its own).
    @Test func theMachineStepFollowsEachKindsRoute() {
        typealias Decision = FleetRouter.Decision
        for kind in RequestKind.allCases {
            let route = kind.descriptor.route
            let plain = Decision.of(route, fleetSession: false, linked: "m2")
            let home = Decision.of(route, fleetSession: true, linked: nil)
            let linked = Decision.of(route, fleetSession: true, linked: "m2")
            switch route {
            case .fleet:
                #expect([plain, home, linked] == [.fleet, .fleet, .fleet], "\(kind)")
            case .here:
                #expect([plain, home, linked] == [.here, .here, .here], "\(kind)")
            case .everyMachine:
                #expect([plain, home, linked] == [.here, .everyMachine, .everyMachine], "\(kind)")
            case .relayedHere:
                #expect([plain, home, linked] == [.here, .here, .relayed("m2")], "\(kind)")
            case .notForwarded:
                #expect([plain, home, linked] == [.here, .here, .refused("m2")], "\(kind)")
            case .follows:
                #expect([plain, home, linked] == [.here, .here, .forward("m2")], "\(kind)")
            }
        }
        #expect(RequestKind.unsubscribe.descriptor.route == .here && RequestKind.openPreview.descriptor.route == .notForwarded)
    }
}
