package qdranttest

import (
	"context"
	"fmt"
	"net"
	"slices"
	"sync"
	"testing"

	"github.com/qdrant/go-client/qdrant"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// Version is the Qdrant version the fake reports in its health check.
const Version = "1.17.1"

// Request is one recorded call.
type Request struct {
	// Method is the full gRPC method, as in the go-client constants
	// (qdrant.Points_Query_FullMethodName is "/qdrant.Points/Query").
	Method string
	// Message is a copy of the request message.
	Message proto.Message
}

// Server is a running fake Qdrant. Its methods are safe for concurrent
// use.
type Server struct {
	// Addr is the host:port the server listens on.
	Addr string

	grpc *grpc.Server

	mu          sync.Mutex
	collections map[string]*collection
	requests    []Request
	faults      map[string][]codes.Code
	apiKey      string
	opID        uint64
	noRecord    bool
}

// NewServer starts a fake Qdrant on 127.0.0.1 and stops it when the test
// ends.
func NewServer(tb testing.TB) *Server {
	tb.Helper()
	s, err := Listen("127.0.0.1:0", true)
	if err != nil {
		tb.Fatalf("qdranttest: %v", err)
	}
	tb.Cleanup(s.Stop)
	return s
}

// Listen starts a fake Qdrant on addr, for a test that runs it in a
// process of its own; record says whether requests are kept for Requests
// (a long run without them keeps only the points). Stop ends it.
func Listen(addr string, record bool) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen: %w", err)
	}
	s := &Server{
		Addr:        ln.Addr().String(),
		collections: make(map[string]*collection),
		faults:      make(map[string][]codes.Code),
		noRecord:    !record,
	}
	s.grpc = grpc.NewServer(grpc.UnaryInterceptor(s.intercept))
	qdrant.RegisterPointsServer(s.grpc, pointsService{s: s})
	qdrant.RegisterCollectionsServer(s.grpc, collectionsService{s: s})
	qdrant.RegisterQdrantServer(s.grpc, qdrantService{})
	go s.grpc.Serve(ln) //nolint:errcheck // Serve returns when Stop closes the listener
	return s, nil
}

// Stop stops the server.
func (s *Server) Stop() { s.grpc.Stop() }

// URL returns the server's address as qdrant.Options.URL takes it.
func (s *Server) URL() string { return "http://" + s.Addr }

// Requests returns every request received so far, oldest first, including
// those that failed.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// RequestsFor returns the recorded requests of one method, oldest first.
func (s *Server) RequestsFor(method string) []proto.Message {
	var out []proto.Message
	for _, r := range s.Requests() {
		if r.Method == method {
			out = append(out, r.Message)
		}
	}
	return out
}

// FailNext makes the next call of method (a full gRPC method such as
// qdrant.Points_Query_FullMethodName) fail with code. Calls queue up: two
// FailNext fail the next two calls. It panics on a method the fake does
// not serve.
func (s *Server) FailNext(method string, code codes.Code) {
	if !knownMethod(method) {
		panic(fmt.Sprintf("qdranttest: FailNext: unknown method %q", method))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults[method] = append(s.faults[method], code)
}

// SetAPIKey makes the server require key in the api-key metadata of every
// call but the health check, as Qdrant does with service.api_key set.
// The empty key turns the check off.
func (s *Server) SetAPIKey(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.apiKey = key
}

// intercept records each call, checks the API key and injects faults.
func (s *Server) intercept(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	s.mu.Lock()
	if !s.noRecord {
		s.requests = append(s.requests, Request{Method: info.FullMethod, Message: proto.Clone(req.(proto.Message))})
	}
	key := s.apiKey
	var fault codes.Code
	q := s.faults[info.FullMethod]
	if len(q) > 0 {
		fault, s.faults[info.FullMethod] = q[0], q[1:]
	}
	s.mu.Unlock()
	if key != "" && info.FullMethod != qdrant.Qdrant_HealthCheck_FullMethodName {
		md, _ := metadata.FromIncomingContext(ctx)
		if got := md.Get("api-key"); len(got) != 1 || got[0] != key {
			return nil, status.Error(codes.PermissionDenied, "Invalid api-key")
		}
	}
	if len(q) > 0 {
		return nil, status.Errorf(fault, "qdranttest: injected %s for %s", fault, info.FullMethod)
	}
	return handler(ctx, req)
}

// knownMethod reports whether the server registers method.
func knownMethod(method string) bool {
	for _, d := range []grpc.ServiceDesc{qdrant.Points_ServiceDesc, qdrant.Collections_ServiceDesc, qdrant.Qdrant_ServiceDesc} {
		for _, m := range d.Methods {
			if method == "/"+d.ServiceName+"/"+m.MethodName {
				return true
			}
		}
	}
	return false
}

// qdrantService serves the health check.
type qdrantService struct {
	qdrant.UnimplementedQdrantServer
}

// HealthCheck reports the fake's version.
func (qdrantService) HealthCheck(context.Context, *qdrant.HealthCheckRequest) (*qdrant.HealthCheckReply, error) {
	return &qdrant.HealthCheckReply{Title: "qdrant - vector search engine", Version: Version}, nil
}

// collection returns the named collection; callers hold s.mu.
func (s *Server) collection(name string) (*collection, error) {
	c := s.collections[name]
	if c == nil {
		return nil, status.Errorf(codes.NotFound, "Not found: Collection `%s` doesn't exist!", name)
	}
	return c, nil
}

// updated returns the result of a write; callers hold s.mu.
func (s *Server) updated() *qdrant.PointsOperationResponse {
	s.opID++
	return &qdrant.PointsOperationResponse{Result: &qdrant.UpdateResult{
		OperationId: qdrant.PtrOf(s.opID),
		Status:      qdrant.UpdateStatus_Completed,
	}}
}

// unimplemented returns the error of a feature the fake lacks.
func unimplemented(format string, args ...any) error {
	return status.Errorf(codes.Unimplemented, "qdranttest: "+format+" is not implemented by the fake", args...)
}

// invalid returns Qdrant's error for a bad request.
func invalid(format string, args ...any) error {
	return status.Errorf(codes.InvalidArgument, "Wrong input: "+format, args...)
}
