package oauth

import hs "github.com/hybrid-search/hybridsearch"

// Metadata is the RFC 8414 authorization server metadata.
type Metadata struct {
	Issuer                                 string   `json:"issuer"`
	AuthorizationEndpoint                  string   `json:"authorization_endpoint"`
	TokenEndpoint                          string   `json:"token_endpoint"`
	RegistrationEndpoint                   string   `json:"registration_endpoint"`
	RevocationEndpoint                     string   `json:"revocation_endpoint"`
	ScopesSupported                        []string `json:"scopes_supported"`
	ResponseTypesSupported                 []string `json:"response_types_supported"`
	ResponseModesSupported                 []string `json:"response_modes_supported"`
	GrantTypesSupported                    []string `json:"grant_types_supported"`
	TokenEndpointAuthMethodsSupported      []string `json:"token_endpoint_auth_methods_supported"`
	RevocationEndpointAuthMethodsSupported []string `json:"revocation_endpoint_auth_methods_supported"`
	CodeChallengeMethodsSupported          []string `json:"code_challenge_methods_supported"`
	ClientIDMetadataDocumentSupported      bool     `json:"client_id_metadata_document_supported"`
	// AuthorizationResponseIssParameterSupported: every authorization
	// response carries iss (RFC 9207).
	AuthorizationResponseIssParameterSupported bool `json:"authorization_response_iss_parameter_supported"`
}

// OpenIDMetadata is the document served as openid-configuration: the
// RFC 8414 metadata and the members OpenID Connect Discovery makes
// required, with what is true of them here.
type OpenIDMetadata struct {
	Metadata
	JWKSURI                          string   `json:"jwks_uri"`
	SubjectTypesSupported            []string `json:"subject_types_supported"`
	IDTokenSigningAlgValuesSupported []string `json:"id_token_signing_alg_values_supported"`
}

// Metadata returns the server's RFC 8414 metadata. Clients are public
// (token_endpoint_auth_method "none"): PKCE, not a secret, proves the
// code's owner, and a Basic header would be taken by Nextcloud's own
// login on its way through the proxy.
func (s *Server) Metadata() Metadata {
	base := s.o.Issuer
	return Metadata{
		Issuer:                                     base,
		AuthorizationEndpoint:                      base + AuthorizePath,
		TokenEndpoint:                              base + TokenPath,
		RegistrationEndpoint:                       base + RegisterPath,
		RevocationEndpoint:                         base + RevokePath,
		ScopesSupported:                            []string{hs.TokenScope},
		ResponseTypesSupported:                     []string{"code"},
		ResponseModesSupported:                     []string{"query"},
		GrantTypesSupported:                        []string{"authorization_code", "refresh_token"},
		TokenEndpointAuthMethodsSupported:          []string{"none"},
		RevocationEndpointAuthMethodsSupported:     []string{"none"},
		CodeChallengeMethodsSupported:              []string{"S256"},
		ClientIDMetadataDocumentSupported:          s.o.Fetcher != nil,
		AuthorizationResponseIssParameterSupported: true,
	}
}

// OpenIDMetadata returns the metadata for /.well-known/openid-configuration
// under the issuer. The issuer has a path (the proxy's), so the RFC 8414
// and OIDC "path insertion" URLs are on Nextcloud's own /.well-known/,
// which answers 404; the one URL MCP clients try that reaches the app is
// OIDC's "path appending" one. Its document must name jwks_uri,
// subject_types_supported and id_token_signing_alg_values_supported (the
// official TypeScript SDK's schema requires the three, as arrays of
// strings). They say what is true: this server issues no ID tokens, so
// it signs them with no algorithm and publishes no keys (the key set is
// empty; access tokens are for this app alone), and it offers no openid
// scope; a token's subject is the Nextcloud user, the same for every
// client ("public").
func (s *Server) OpenIDMetadata() OpenIDMetadata {
	return OpenIDMetadata{
		Metadata: s.Metadata(), JWKSURI: s.o.Issuer + JWKSPath,
		SubjectTypesSupported: []string{"public"}, IDTokenSigningAlgValuesSupported: []string{},
	}
}
