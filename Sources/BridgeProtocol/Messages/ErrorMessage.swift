/// `{"kind":"error","id":"…","code":"…","message":"…"}`: the answer to a request that failed, or to a frame
/// that could not be understood (then `id` is absent when it could not be read).
public struct ErrorMessage: Codable, Sendable, Hashable, Error {
    public var id: String?
    public var code: BridgeErrorCode
    public var message: String
    /// With `forbidden` for a device that lacks a scope: the scope the request needs.
    public var scope: Scope?
    /// In a fleet session: the linked machine that refused, or that `machine_unavailable` names.
    public var machine: String?
    /// For a live channel frame (`unknown_stream`, `too_large`, `bad_request`): the stream it named.
    public var streamId: UInt32?

    public init(
        id: String?, code: BridgeErrorCode, message: String, scope: Scope? = nil, machine: String? = nil, streamId: UInt32? = nil
    ) {
        self.streamId = streamId
        self.machine = machine
        self.id = id
        self.code = code
        self.message = message
        self.scope = scope
    }
}
