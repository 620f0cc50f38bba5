import Foundation
import Testing

@testable import BridgeServe
@testable import codex_bridge

@Suite struct PushSettingsTests {
    @Test func flagsWinAndDefaultsFillIn() {
        let defaults = PushSettings(ServeOptions())
        #expect(defaults.enabled && defaults.inhibit && defaults.delay.duration == .seconds(20) && defaults.notifyURLs.isEmpty)
        #expect(defaults.tokenLifetime.duration == .seconds(15 * 60))
        let file = ServeOptions(push: false, pushDelay: DurationArgument(argument: "5s"), notify: ["https://ntfy.sh/a"], inhibit: false)
        let flags = ServeOptions(pushDelay: DurationArgument(argument: "2s"), notifyActionURL: "https://h:9099/")
        let settings = ServeSettings(flags.overriding(file)).push
        #expect(!settings.enabled && !settings.inhibit && settings.delay.duration == .seconds(2))
        #expect(settings.notifyURLs == ["https://ntfy.sh/a"] && settings.actionURL == "https://h:9099")
        #expect(PushSettings.defaultSubject(environment: ["USER": "ana"]).hasPrefix("mailto:ana@"))
    }

    @Test func oneCheckNamesTheFlagOrTheKey() {
        func problem(_ options: ServeOptions, _ name: (ServeSetting) -> String) -> String? {
            do {
                try options.check(naming: name)
                return nil
            } catch {
                return "\(name(error.setting)) \(error.message)"
            }
        }
        #expect(problem(ServeOptions(pushSubject: "ana@example.org"), \.flag) == "--push-subject must be a mailto: or https:// URI")
        #expect(problem(ServeOptions(pushSubject: "ana@example.org"), \.fileName) == "push_subject must be a mailto: or https:// URI")
        #expect(problem(ServeOptions(notify: ["ftp://x/y"]), \.flag)?.hasPrefix("--notify-url must be an http(s) URL") == true)
        #expect(problem(ServeOptions(notifyActionURL: "phone"), \.fileName)?.hasPrefix("notify_action_url must be") == true)
        #expect(problem(ServeOptions(pushDelay: DurationArgument(argument: "2h")), \.flag) == "--push-delay must be at most 1h")
        #expect(problem(ServeOptions(push: false, inhibit: false), \.flag) == nil)
        // A secret in a bad URL is not repeated in the message.
        #expect(problem(ServeOptions(notify: ["ftp://user:hunter2@x/y"]), \.flag)?.contains("hunter2") == false)
    }
}
