import BridgeProtocol

/// Whether Codex can hold a realtime voice session, from what it reports: `account/read` and
/// `experimentalFeature/list`. Codex 0.163's `thread/realtime/start` itself refuses none of these (it answers `{}`
/// and fails later, at the provider, or not at all with a custom provider), so the bridge says what is missing
/// before anything starts, each with its own code (BRIDGE.md, Voice).
enum VoiceReadiness {
    /// Codex's name of the realtime feature.
    static let feature = "realtime_conversation"

    /// The refusal for Codex's `account/read` answer, nil when it is a ChatGPT sign-in on OpenAI's provider.
    static func refusal(account: JSONValue) -> HubError? {
        // A custom provider (`model_provider`, its own `env_key`) needs no OpenAI sign-in; Codex then reports no
        // account at all, whatever auth.json holds.
        if account["requiresOpenaiAuth"]?.boolValue == false {
            return HubError(
                .voiceAPIKey,
                "Codex on the workstation uses another model provider (its config's model_provider); voice needs OpenAI's provider with a ChatGPT sign-in"
            )
        }
        switch account["account"]?["type"]?.stringValue {
        case "chatgpt":
            return nil
        case nil:
            return HubError(.voiceNoLogin, "Codex on the workstation is not signed in with ChatGPT; run `codex login` there to use voice")
        case let type?:
            let what = type == "apiKey" ? "an API key" : "a \(type.prefix(40)) account"
            return HubError(
                .voiceAPIKey, "Codex on the workstation is signed in with \(what); voice needs a ChatGPT sign-in (`codex login` there)")
        }
    }

    /// The refusal for Codex's `experimentalFeature/list` answer, nil when the realtime feature is on.
    static func refusal(features: JSONValue) -> HubError? {
        let entry = features["data"]?.arrayValue?.first { $0["name"]?.stringValue == feature }
        guard let entry else {
            return HubError(.voiceDisabled, "this Codex has no realtime voice (\(feature)); update Codex on the workstation")
        }
        guard entry["enabled"]?.boolValue == true else {
            return HubError(
                .voiceDisabled,
                "Codex's \(feature) feature is off on the workstation; turn it on ([features] \(feature) = true in Codex's config.toml)")
        }
        return nil
    }

    /// The refusal for the newest page of the thread's turns (`thread/turns/list`, limit 1), nil when it has one.
    static func refusal(turns: JSONValue, threadId: String) -> HubError? {
        guard let data = turns["data"]?.arrayValue, data.isEmpty else { return nil }
        return HubError(.voiceNoTurn, "thread \(threadId) has had no turn yet; send it a message first, then talk")
    }

    /// Codex's voice list (`thread/realtime/listVoices`'s `voices`) as the bridge answers it: Codex 0.163 runs a
    /// WebRTC session in realtime v1 and one over its own websocket in v2 (`thread/realtime/started`'s `version`), so
    /// v1's voices and default for `startVoice {sdp}`, v2's for the other; names checked, at most
    /// ``VoiceList/maxVoices`` each.
    static func voices(_ result: JSONValue) -> VoiceList {
        let voices = result["voices"]
        func names(_ version: String) -> [String] {
            let valid = (voices?[version]?.arrayValue ?? []).compactMap(\.stringValue).filter(VoiceList.isVoiceName)
            return Array(valid.prefix(VoiceList.maxVoices))
        }
        func name(_ key: String) -> String? {
            (voices?[key]?.stringValue).flatMap { VoiceList.isVoiceName($0) ? $0 : nil }
        }
        return VoiceList(
            voices: names("v1"), defaultVoice: name("defaultV1"), websocketVoices: names("v2"), websocketDefaultVoice: name("defaultV2"))
    }
}
