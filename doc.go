// Package hybridsearch is the domain vocabulary of the Hybrid Search ExApp:
// users, files, chunks, index jobs, search hits and the closed set of error
// kinds every other package speaks. It imports only the standard library.
package hybridsearch
