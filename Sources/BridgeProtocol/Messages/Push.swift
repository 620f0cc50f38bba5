/// `pushSubscribe {subscription: {endpoint, keys: {p256dh, auth}}, events?}`: a browser's Web Push
/// subscription (`PushSubscription.toJSON()`) for this device. Answered with `pushSubscribed`.
public struct PushSubscribe: RequestPayload {
    public var subscription: WebPushSubscription
    /// Which notices this subscription wants: `approval`, `turnCompleted`, `turnFailed` (default all).
    public var events: [String]?
    public init(subscription: WebPushSubscription, events: [String]? = nil) {
        self.subscription = subscription
        self.events = events
    }
}

/// The part of a browser's `PushSubscription` the bridge needs.
public struct WebPushSubscription: Codable, Sendable, Hashable {
    /// The push service URL (https; http only on loopback).
    public var endpoint: String
    public var keys: Keys

    public struct Keys: Codable, Sendable, Hashable {
        /// base64url of the browser's P-256 public key (65 bytes, uncompressed).
        public var p256dh: String
        /// base64url of the 16-byte auth secret.
        public var auth: String
        public init(p256dh: String, auth: String) {
            self.p256dh = p256dh
            self.auth = auth
        }
    }

    public init(endpoint: String, keys: Keys) {
        self.endpoint = endpoint
        self.keys = keys
    }
}

/// `pushSubscribed {subscriptionId}`.
public struct PushSubscribed: Codable, Sendable, Hashable {
    public var subscriptionId: String
    public init(subscriptionId: String) { self.subscriptionId = subscriptionId }
}

/// `pushUnsubscribe {subscriptionId}`: answered with `accepted {}`.
public struct PushUnsubscribe: RequestPayload {
    public var subscriptionId: String
    public init(subscriptionId: String) { self.subscriptionId = subscriptionId }
}

/// `presence {visible}`: whether the app is on screen (a visible device gets no push). Answered with
/// `accepted {}`.
public struct Presence: RequestPayload {
    public var visible: Bool
    public init(visible: Bool) { self.visible = visible }
}
