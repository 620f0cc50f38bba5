import ArgumentParser
import BridgePush
import BridgeServe
import Foundation

/// `serve` options for notifications and the sleep inhibitor (``ServeSetting`` `push` … `inhibit`).
struct PushOptions: ParsableArguments {
    @Flag(name: .setting(.push), help: .setting(.push))
    var noPush = false

    @Option(name: .setting(.pushSubject), help: .setting(.pushSubject))
    var subject: String?

    @Option(name: .setting(.pushDelay), help: .setting(.pushDelay))
    var delay: DurationArgument?

    @Option(name: .setting(.notify), help: .setting(.notify))
    var notifyURLs: [String] = []

    @Option(name: .setting(.notifyActionURL), help: .setting(.notifyActionURL))
    var actionURL: String?

    @Option(name: .setting(.allowPushHosts), help: .setting(.allowPushHosts))
    var allowPushHosts: [String] = []

    @Flag(name: .setting(.inhibit), help: .setting(.inhibit))
    var noInhibit = false

    /// Tests: how long an action token lives (default 15m).
    @Option(name: .customLong("push-token-lifetime"), help: .hidden)
    var tokenLifetime: DurationArgument?

    /// Puts what the command line says into `options` (nil where it says nothing).
    func fill(_ options: inout ServeOptions) {
        options.push = noPush ? false : nil
        options.pushSubject = subject
        options.pushDelay = delay
        options.notify = notifyURLs.isEmpty ? nil : notifyURLs
        options.notifyActionURL = actionURL
        options.allowPushHosts = allowPushHosts.isEmpty ? nil : allowPushHosts
        options.inhibit = noInhibit ? false : nil
        options.pushTokenLifetime = tokenLifetime
    }
}
