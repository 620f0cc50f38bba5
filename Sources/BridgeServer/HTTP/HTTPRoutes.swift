import Hummingbird

/// The HTTP routes beside the WebSocket that `serve` adds (``BridgeServer``'s `extraRoutes`): `/metrics`,
/// `/uploads` and `/files` behind the one bearer check (``BearerAuthMiddleware``), and `/push/action`, whose
/// single-use token is the credential (a bearer, when sent, goes through the same check). Each route takes a
/// small protocol, not the hub, so this exact wiring is what the in-process tests run.
package struct HTTPRoutes: Sendable {
    package let credentials: CredentialCheck
    package var metrics: MetricsRoute?
    package var uploads: UploadRoute?
    package var files: FileDownloadRoute?
    package var pushAction: PushActionRoute?

    package init(
        credentials: CredentialCheck, metrics: MetricsRoute? = nil, uploads: UploadRoute? = nil, files: FileDownloadRoute? = nil,
        pushAction: PushActionRoute? = nil
    ) {
        self.credentials = credentials
        self.metrics = metrics
        self.uploads = uploads
        self.files = files
        self.pushAction = pushAction
    }

    /// Adds the routes to `router`.
    package func add(to router: Router<BridgeRequestContext>) {
        let authenticated = router.group().add(middleware: BearerAuthMiddleware(credentials))
        metrics?.addRoutes(to: authenticated)
        uploads?.addRoutes(to: authenticated)
        files?.addRoutes(to: authenticated)
        pushAction?.addRoutes(to: router, authenticator: credentials)
    }
}
