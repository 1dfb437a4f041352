package ncsim

import (
	"net/http"
	"slices"
	"time"
)

// webhookEventClass is one event class that implements
// OCP\EventDispatcher\IWebhookCompatibleEvent in Nextcloud server (core and
// the apps it bundles), with the first major that has it and the file that
// declares it. webhook_listeners registers only such classes:
// WebhookListenerMapper::addWebhookListener checks class_exists and
// is_a(IWebhookCompatibleEvent) and throws "<class> is not an event class
// compatible with webhooks", which the controller answers with OCS 400.
// Apps outside the server (Forms, Tables, Deck, Mail, ...) add their own;
// the simulator has none of them installed.
type webhookEventClass struct {
	class  string
	since  int    // first Nextcloud major that can register it (at least 32)
	source string // nextcloud/server file that makes it webhook-compatible
}

// webhookEventClasses is the registrable set. Node events are
// webhook-compatible through AbstractNodeEvent / AbstractNodesEvent
// (getWebhookSerializable @since 30.0.0).
var webhookEventClasses = []webhookEventClass{
	{NodeCreatedEvent, 32, "lib/public/Files/Events/Node/NodeCreatedEvent.php (AbstractNodeEvent)"},
	{NodeWrittenEvent, 32, "lib/public/Files/Events/Node/NodeWrittenEvent.php (AbstractNodeEvent)"},
	{NodeTouchedEvent, 32, "lib/public/Files/Events/Node/NodeTouchedEvent.php (AbstractNodeEvent)"},
	{NodeDeletedEvent, 32, "lib/public/Files/Events/Node/NodeDeletedEvent.php (AbstractNodeEvent)"},
	{BeforeNodeCreatedEvent, 32, "lib/public/Files/Events/Node/BeforeNodeCreatedEvent.php (AbstractNodeEvent)"},
	{BeforeNodeWrittenEvent, 32, "lib/public/Files/Events/Node/BeforeNodeWrittenEvent.php (AbstractNodeEvent)"},
	{BeforeNodeTouchedEvent, 32, "lib/public/Files/Events/Node/BeforeNodeTouchedEvent.php (AbstractNodeEvent)"},
	{BeforeNodeDeletedEvent, 32, "lib/public/Files/Events/Node/BeforeNodeDeletedEvent.php (AbstractNodeEvent)"},
	{BeforeNodeReadEvent, 32, "lib/public/Files/Events/Node/BeforeNodeReadEvent.php (AbstractNodeEvent)"},
	{NodeUpdatedEvent, 34, "lib/public/Files/Events/Node/NodeUpdatedEvent.php (AbstractNodeEvent, @since 34.0.0)"},
	{BeforeNodeUpdatedEvent, 34, "lib/public/Files/Events/Node/BeforeNodeUpdatedEvent.php (AbstractNodeEvent, @since 34.0.0)"},
	{NodeRenamedEvent, 32, "lib/public/Files/Events/Node/NodeRenamedEvent.php (AbstractNodesEvent)"},
	{NodeCopiedEvent, 32, "lib/public/Files/Events/Node/NodeCopiedEvent.php (AbstractNodesEvent)"},
	{BeforeNodeRenamedEvent, 32, "lib/public/Files/Events/Node/BeforeNodeRenamedEvent.php (AbstractNodesEvent)"},
	{BeforeNodeCopiedEvent, 32, "lib/public/Files/Events/Node/BeforeNodeCopiedEvent.php (AbstractNodesEvent)"},
	{NodeRestoredEvent, 32, "apps/files_trashbin/lib/Events/NodeRestoredEvent.php (AbstractNodesEvent, @since 28.0.0)"},
	{BeforeNodeRestoredEvent, 32, "apps/files_trashbin/lib/Events/BeforeNodeRestoredEvent.php (AbstractNodesEvent, @since 28.0.0)"},
	{`OCP\SystemTag\TagAssignedEvent`, 32, "lib/public/SystemTag/TagAssignedEvent.php (@since 32.0.0)"},
	{`OCP\SystemTag\TagUnassignedEvent`, 32, "lib/public/SystemTag/TagUnassignedEvent.php (@since 32.0.0)"},
	{`OCP\Calendar\Events\CalendarObjectCreatedEvent`, 32, "lib/public/Calendar/Events/CalendarObjectCreatedEvent.php (AbstractCalendarObjectEvent, @since 32.0.0)"},
	{`OCP\Calendar\Events\CalendarObjectUpdatedEvent`, 32, "lib/public/Calendar/Events/CalendarObjectUpdatedEvent.php (AbstractCalendarObjectEvent)"},
	{`OCP\Calendar\Events\CalendarObjectDeletedEvent`, 32, "lib/public/Calendar/Events/CalendarObjectDeletedEvent.php (AbstractCalendarObjectEvent)"},
	{`OCP\Calendar\Events\CalendarObjectMovedToTrashEvent`, 32, "lib/public/Calendar/Events/CalendarObjectMovedToTrashEvent.php (AbstractCalendarObjectEvent)"},
	{`OCP\Calendar\Events\CalendarObjectRestoredEvent`, 32, "lib/public/Calendar/Events/CalendarObjectRestoredEvent.php (AbstractCalendarObjectEvent)"},
	{`OCP\Calendar\Events\CalendarObjectMovedEvent`, 32, "lib/public/Calendar/Events/CalendarObjectMovedEvent.php (@since 32.0.0)"},
	{`OCP\User\Events\UserFirstTimeLoggedInEvent`, 32, "lib/public/User/Events/UserFirstTimeLoggedInEvent.php"},
}

// WebhookCompatible reports whether webhook_listeners of the simulated
// version accepts class (after trimming leading backslashes).
func (s *Server) WebhookCompatible(class string) bool {
	s.init()
	major := s.release().major
	return slices.ContainsFunc(webhookEventClasses, func(c webhookEventClass) bool {
		return c.class == class && c.since <= major
	})
}

// eventsCacheTTL is how long webhook_listeners caches, per user, the set of
// event classes that have a webhook (WebhookListenerMapper::
// getAllConfiguredEvents: "cache for 5 minutes", key
// eventsUsedInWebhooks_<uid>).
const eventsCacheTTL = 5 * time.Minute

// eventsCacheEntry is one cached getAllConfiguredEvents answer.
type eventsCacheEntry struct {
	classes map[string]bool
	expires time.Time
}

// eventsCacheKey is buildCacheKey: "" for requests without a user.
func eventsCacheKey(uid string) string { return "eventsUsedInWebhooks_" + uid }

// listenedEventsLocked is what webhook_listeners' Application::boot does
// on every request: it registers its listener for the event classes that
// have a webhook usable by uid, from the 5-minute cache when present. An
// event whose class is not in the answer reaches no webhook, even if one
// was registered since. Callers hold s.mu.
func (s *Server) listenedEventsLocked(uid string) map[string]bool {
	key := eventsCacheKey(uid)
	now := s.now()
	if e, ok := s.hooks.webhooks.eventsCache[key]; ok && now.Before(e.expires) {
		return e.classes
	}
	classes := map[string]bool{}
	for _, l := range s.hooks.webhooks.listeners {
		if l.UserIDFilter == "" || (uid != "" && l.UserIDFilter == uid) {
			classes[l.Event] = true
		}
	}
	if s.hooks.webhooks.eventsCache == nil {
		s.hooks.webhooks.eventsCache = map[string]eventsCacheEntry{}
	}
	s.hooks.webhooks.eventsCache[key] = eventsCacheEntry{classes: classes, expires: now.Add(eventsCacheTTL)}
	return classes
}

// bootWebhookListeners runs webhook_listeners' boot for request r and
// returns a function to call when r is done. webhook_listeners is a
// "filesystem" app (its appinfo/info.xml), so index.php, ocs/v*.php and
// remote.php load and boot it before they log the caller in with Basic
// auth, an app password or AppAPI headers: such requests use the no-user
// cache key, which a new webhook clears at once. Only a request that
// arrives with a session cookie is logged in at boot time, so it uses the
// user's key, and events it fires follow that user's cached set.
func (s *Server) bootWebhookListeners(r *http.Request) (done func()) {
	uid, _ := s.sessionUser(r)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.listenedEventsLocked(uid)
	if uid == "" {
		return func() {}
	}
	if s.hooks.webhooks.sessionUsers == nil {
		s.hooks.webhooks.sessionUsers = map[string]int{}
	}
	s.hooks.webhooks.sessionUsers[uid]++
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.hooks.webhooks.sessionUsers[uid]--; s.hooks.webhooks.sessionUsers[uid] <= 0 {
			delete(s.hooks.webhooks.sessionUsers, uid)
		}
	}
}

// bootUserLocked is the cache key user of the request that fired an event
// by uid: uid while a session request of uid is in flight, else "".
// Events fired through the setup API count as requests without a session.
func (s *Server) bootUserLocked(uid string) string {
	if s.hooks.webhooks.sessionUsers[uid] > 0 {
		return uid
	}
	return ""
}

// forgetEventsCacheLocked is cache->remove(buildCacheKey(userIdFilter)),
// run when a webhook is added or updated: only that one key goes, so
// users whose set is cached keep it for up to 5 minutes.
func (s *Server) forgetEventsCacheLocked(userIDFilter string) {
	delete(s.hooks.webhooks.eventsCache, eventsCacheKey(userIDFilter))
}
