package oauth

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
)

// sealer seals small values into opaque, tamper-proof strings with a key
// derived from the app's secret (AES-256-GCM, a fresh nonce each time).
// The OAuth server keeps what anonymous callers give it this way, in the
// string it hands back (a client_id, a sign-in handle), instead of in a
// store: nothing anyone sends without signing in takes room anywhere.
type sealer struct{ aead cipher.AEAD }

// Purposes of sealed strings: one can never be opened as the other.
const (
	purposeClient  = "hybridsearch oauth client v1"
	purposeRequest = "hybridsearch oauth request v1"
)

func newSealer(secret []byte) (*sealer, error) {
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte("hybridsearch oauth sealing key"))
	block, err := aes.NewCipher(mac.Sum(nil))
	if err != nil {
		return nil, fmt.Errorf("oauth: sealing key: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("oauth: sealing key: %w", err)
	}
	return &sealer{aead: aead}, nil
}

// seal returns v (as JSON) sealed for purpose, base64url.
func (s *sealer) seal(purpose string, v any) (string, error) {
	plain, err := marshal(v)
	if err != nil {
		return "", err
	}
	nonce := make([]byte, s.aead.NonceSize(), s.aead.NonceSize()+len(plain)+s.aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		return "", fmt.Errorf("oauth: random: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(s.aead.Seal(nonce, nonce, plain, []byte(purpose))), nil
}

// open reads into v what seal sealed for purpose; false for anything else.
func (s *sealer) open(purpose, sealed string, v any) bool {
	raw, err := base64.RawURLEncoding.DecodeString(sealed)
	if err != nil || len(raw) < s.aead.NonceSize()+s.aead.Overhead() {
		return false
	}
	n := s.aead.NonceSize()
	plain, err := s.aead.Open(nil, raw[:n], raw[n:], []byte(purpose))
	return err == nil && json.Unmarshal(plain, v) == nil
}

// marshal is json.Marshal without HTML escaping: a "<" in a state or a
// URI is stored as one byte, not six.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("oauth: encode: %w", err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
