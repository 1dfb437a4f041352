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

	// The members below are only in the document served as
	// openid-configuration (see OpenIDMetadata).
	JWKSURI                          string   `json:"jwks_uri,omitempty"`
	SubjectTypesSupported            []string `json:"subject_types_supported,omitempty"`
	IDTokenSigningAlgValuesSupported []string `json:"id_token_signing_alg_values_supported,omitempty"`
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
// official TypeScript SDK rejects it otherwise). This server issues no ID
// tokens and does not offer the openid scope: the key set is empty and
// the algorithm list is the one OIDC Discovery requires.
func (s *Server) OpenIDMetadata() Metadata {
	m := s.Metadata()
	m.JWKSURI = s.o.Issuer + JWKSPath
	m.SubjectTypesSupported = []string{"public"}
	m.IDTokenSigningAlgValuesSupported = []string{"RS256"}
	return m
}
