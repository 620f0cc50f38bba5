import BridgeHub
import BridgeOps
import BridgeStore
import Foundation
import Logging
import Pairing
import ServiceLifecycle

extension ServeBuild {
    /// Everything made so far as services in start order. They shut down in reverse: clients get 1001 first, then
    /// codex stops, then the hub drains its events; a shared app-server this bridge started stops last.
    static func services(_ settings: ServeSettings, state: State, tls: TLS, core: Core, server: Server, logger: Logger) async
        -> [ServiceGroupConfiguration.ServiceConfiguration]
    {
        let hub = core.hub
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = []
        if let shared = core.shared { services.append(.init(service: shared.appServer, successTerminationBehavior: .ignore)) }
        services += [
            .init(service: hub, successTerminationBehavior: .ignore), .init(service: core.supervisor), .init(service: server.bridge),
            .init(service: server.previewProxy),
            .init(
                service: StateDirectoryWatch(
                    directory: state.paths.stateDirectory, database: state.pairing.registry.database, logger: logger)),
            .init(service: state.pairing.revocationWatcher), .init(service: ScopeWatcher(hub: hub)),
            .init(service: JournalPruner(storage: state.storage, logger: logger)), .init(service: core.fleet),
        ]
        services += core.notifications.services
        if let publisher = server.publisher { services.append(.init(service: publisher)) }
        if let tailscale = tls.tailscale { services.append(.init(service: tailscale)) }
        if let authority = tls.authority {
            let magicDNS = await TailscaleCLI(logger: logger).magicDNSName()
            services.append(
                .init(
                    service: ServeTLSRenewal(
                        paths: state.paths, authority: authority, listenHosts: [state.pairing.host], magicDNSName: magicDNS,
                        interval: ServeTLSRenewal.interval(), logger: logger)))
        }
        services += terminal(settings, state: state, core: core, server: server, logger: logger)
        // Last, so it is the first to stop: running turns finish while clients, server and codex are all still there.
        services.append(.init(service: TurnDrain(hub: hub, grace: settings.shutdownGrace.duration, logger: logger)))
        return services
    }

    /// What serve shows on its terminal: scope requests, the y/N pairing question, the startup QR. Each ends
    /// when it has nothing more to show, which stops nothing else.
    static func terminal(_ settings: ServeSettings, state: State, core: Core, server: Server, logger: Logger)
        -> [ServiceGroupConfiguration.ServiceConfiguration]
    {
        let terminal = isatty(STDOUT_FILENO) == 1
        // One reader of the keys typed on serve's terminal, for the y/N questions (a pairing's, a scope request's)
        // and the QR's Enter.
        let input = TerminalInput.isTerminal ? TerminalInput.standardInput() : nil
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(
                service: ScopeRequestNotice(registry: state.pairing.registry, terminal: terminal, input: input, logger: logger),
                successTerminationBehavior: .ignore)
        ]
        if state.prompting, let input {
            services.append(
                .init(
                    service: ServePairingPrompt(
                        requests: state.asked.stream, registry: state.pairing.registry, input: input, logger: logger),
                    successTerminationBehavior: .ignore))
        }
        services.append(
            .init(
                service: StartupQR(
                    invitations: server.invitations, codexRunning: { [hub = core.hub] in await hub.isCodexRunning },
                    show: settings.qr && terminal, ttl: settings.startupCodeTTL.duration, enters: input?.enters, logger: logger),
                successTerminationBehavior: .ignore))
        return services
    }
}
