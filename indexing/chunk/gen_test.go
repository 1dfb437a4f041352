package chunk_test

import (
	"math/rand/v2"
	"strings"
)

// mdDoc is a generated Markdown document as a list of blocks, joined by
// blank lines; paras lists the indexes of plain paragraphs, which edits
// touch.
type mdDoc struct {
	blocks []string
	paras  []int
}

func (d mdDoc) body() string { return strings.Join(d.blocks, "\n\n") + "\n" }

var syllables = []string{
	"ka", "ri", "to", "men", "sa", "lo", "ver", "din", "ga", "pu", "tre", "no",
	"shi", "ba", "el", "or", "qua", "zen", "fi", "mo", "rat", "cu", "len", "dra",
}

func genWord(rng *rand.Rand) string {
	n := 1 + rng.IntN(3)
	if rng.IntN(6) == 0 {
		n += 2
	}
	var b strings.Builder
	for range n {
		b.WriteString(syllables[rng.IntN(len(syllables))])
	}
	return b.String()
}

func genSentence(rng *rand.Rand) string {
	n := 4 + rng.IntN(14)
	words := make([]string, n)
	for i := range words {
		words[i] = genWord(rng)
	}
	words[0] = strings.ToUpper(words[0][:1]) + words[0][1:]
	end := []string{".", ".", ".", "!", "?"}[rng.IntN(5)]
	return strings.Join(words, " ") + end
}

func genPara(rng *rand.Rand, sentences int) string {
	s := make([]string, sentences)
	for i := range s {
		s[i] = genSentence(rng)
	}
	return strings.Join(s, " ")
}

// genDoc generates a Markdown document of about runes runes: headings on
// three levels, paragraphs of one to eight sentences, some long paragraphs
// (longer than a chunk), lists and code blocks.
func genDoc(rng *rand.Rand, runes int) mdDoc {
	var d mdDoc
	total := 0
	add := func(s string, para bool) {
		if para {
			d.paras = append(d.paras, len(d.blocks))
		}
		d.blocks = append(d.blocks, s)
		total += len(s) + 2
	}
	for total < runes {
		level := 1 + rng.IntN(3)
		add(strings.Repeat("#", level)+" "+genWord(rng)+" "+genWord(rng), false)
		for range 2 + rng.IntN(7) {
			switch k := rng.IntN(20); {
			case k == 0:
				var items []string
				for range 2 + rng.IntN(6) {
					items = append(items, "- "+genSentence(rng))
				}
				add(strings.Join(items, "\n"), false)
			case k == 1:
				add("```\n"+genSentence(rng)+"\n"+genSentence(rng)+"\n```", false)
			case k < 4:
				add(genPara(rng, 10+rng.IntN(20)), true)
			default:
				add(genPara(rng, 1+rng.IntN(8)), true)
			}
		}
	}
	return d
}

// edit returns a copy of d with one paragraph changed in one place: one to
// three consecutive words replaced, a sentence added at its end, or a
// sentence inserted between two of its sentences.
func edit(rng *rand.Rand, d mdDoc) (mdDoc, string) {
	out := mdDoc{blocks: append([]string(nil), d.blocks...), paras: d.paras}
	i := d.paras[rng.IntN(len(d.paras))]
	p := out.blocks[i]
	var what string
	switch rng.IntN(3) {
	case 0:
		// Replace one to three words in a row, keeping punctuation.
		words := strings.Split(p, " ")
		w := rng.IntN(len(words))
		for k := w; k < min(len(words), w+1+rng.IntN(3)); k++ {
			trail := strings.TrimLeft(words[k], "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
			words[k] = genWord(rng) + trail
		}
		p, what = strings.Join(words, " "), "replace words"
	case 1:
		p, what = p+" "+genSentence(rng), "append sentence"
	default:
		ends := []int{0}
		for k := 0; k+1 < len(p); k++ {
			if strings.ContainsRune(".!?", rune(p[k])) && p[k+1] == ' ' {
				ends = append(ends, k+2)
			}
		}
		k := ends[rng.IntN(len(ends))]
		p, what = p[:k]+genSentence(rng)+" "+p[k:], "insert sentence"
	}
	out.blocks[i] = p
	return out, what
}
