package search

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/hybrid-search/hybridsearch/analysis"
)

// referenceTexts stand in for a user's own chunks when the user has too
// few to calibrate the semantic leg on (see semanticBaseline): short
// passages on unrelated everyday and work topics, in the languages the
// analyzer knows best, so that for any query most of them are chance
// neighbours, as most of a user's chunks are. They are embedded as
// documents, once per service (that is, per embedding model).
var referenceTexts = []string{
	"Preheat the oven to 180 degrees, butter the tin and bake the cake for forty minutes.",
	"The train to the airport leaves every twenty minutes from platform four.",
	"Please submit your travel expenses with the original receipts by the end of the month.",
	"The quarterly report shows revenue up four percent on the previous year.",
	"Water the tomatoes in the morning and keep the soil moist but not wet.",
	"The meeting is moved to Thursday at ten; the agenda follows by email.",
	"Restart the router if the wireless network drops more than twice a day.",
	"Our football team won the regional cup after a penalty shoot-out.",
	"The contract ends on 31 March unless either party gives three months' notice.",
	"Symptoms of the flu include fever, cough, sore throat and tiredness.",
	"The library is closed on public holidays; returns go in the box by the door.",
	"Back up the database every night and keep copies for thirty days.",
	"The apartment has two bedrooms, a balcony facing south and a small kitchen.",
	"Migratory birds leave the northern lakes in autumn and return in spring.",
	"Install the update, then sign in again to continue where you left off.",
	"The museum's new exhibition shows paintings from the early twentieth century.",
	"Invoice 2231 is overdue; please pay within fourteen days.",
	"The hiking trail climbs steeply for three kilometres before the ridge.",
	"Children under twelve travel free when accompanied by an adult.",
	"The safety inspection of the machines is due before the end of the year.",
	"Der Zug nach Berlin hat heute etwa zwanzig Minuten Verspätung.",
	"Bitte reichen Sie den Urlaubsantrag mindestens zwei Wochen vorher ein.",
	"Das Rezept braucht Mehl, Zucker, drei Eier und etwas Milch.",
	"Die Heizung im zweiten Stock wird am Montag gewartet.",
	"Le marché du samedi propose des fruits, des légumes et du fromage local.",
	"La réunion du conseil aura lieu mardi prochain à la mairie.",
	"Merci de fermer les fenêtres avant de quitter le bureau.",
	"El vuelo a Madrid sale a las nueve desde la terminal dos.",
	"La biblioteca amplía su horario durante la época de exámenes.",
	"Riempire il modulo e consegnarlo in segreteria entro venerdì.",
	"De fietsenstalling bij het station is 's nachts gesloten.",
	"Konferencja odbędzie się w czerwcu w Krakowie.",
	"明日の会議は午前十時から第二会議室で行います。",
	"駅前の新しいパン屋は朝七時から営業しています。",
	"今年の夏は例年よりも雨が多かった。",
	"请在周五之前提交本月的报销单据。",
	"这家餐厅的招牌菜是红烧肉和清蒸鱼。",
	"Погода на выходных будет солнечной и тёплой.",
	"Sunrise over the harbour, fishing boats heading out past the lighthouse.",
	"The new policy allows employees to work from home two days a week.",
	"Add the onions to the pan and fry them gently until golden.",
	"The printer on the third floor is out of toner again.",
	"Tickets for the concert go on sale on Friday at nine.",
	"The river flooded the lower fields after a week of heavy rain.",
	"Password resets are handled by the service desk during office hours.",
	"The bicycle needs new brake pads and a chain before the summer.",
	"Students must register for the final exams by the fifteenth.",
	"The garden party was cancelled because of the storm warning.",
}

// referenceRetry is how long a failed embedding of the reference texts is
// not tried again.
const referenceRetry = time.Minute

// referenceCache embeds referenceTexts once, as unit vectors.
type referenceCache struct {
	mu     sync.Mutex
	vecs   [][]float32
	failed time.Time // the last failure, to wait referenceRetry
	now    func() time.Time
}

// get returns the reference texts' unit vectors, embedding them on first
// use; none when embed cannot embed documents, or failed less than
// referenceRetry ago.
func (c *referenceCache) get(ctx context.Context, embed QueryEmbedder) ([][]float32, error) {
	de, ok := embed.(DocumentEmbedder)
	if !ok {
		return nil, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.vecs != nil {
		return c.vecs, nil
	}
	if !c.failed.IsZero() && c.now().Sub(c.failed) < referenceRetry {
		return nil, nil
	}
	vecs, err := de.EmbedDocuments(ctx, referenceTexts)
	if err == nil && len(vecs) != len(referenceTexts) {
		err = fmt.Errorf("%d vectors for %d texts", len(vecs), len(referenceTexts))
	}
	if err != nil {
		c.failed = c.now()
		return nil, fmt.Errorf("embed the reference texts: %w", err)
	}
	out := make([][]float32, len(vecs))
	for i, v := range vecs {
		out[i] = slices.Clone(v)
		analysis.Normalize(out[i])
	}
	c.vecs = out
	return out, nil
}
