package nextcloud_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/hybrid-search/hybridsearch/nextcloud"
)

func TestWebhookJSON(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want nextcloud.Webhook
	}{
		{
			name: "protocol doc example",
			in: `{"id":12,"appId":"hybrid_search","userId":null,"httpMethod":"POST","uri":"/webhooks/files",
				"event":"OCP\\Files\\Events\\Node\\NodeWrittenEvent","eventFilter":[],"userIdFilter":"",
				"headers":null,"authMethod":"none","authData":null}`,
			want: nextcloud.Webhook{ID: 12, AppID: "hybrid_search", HTTPMethod: "POST", URI: "/webhooks/files",
				Event: `OCP\Files\Events\Node\NodeWrittenEvent`, AuthMethod: "none"},
		},
		{
			name: "filled in, NC 33 token request, string id",
			in: `{"id":"7","appId":null,"userId":"admin","httpMethod":"PUT","uri":"https://example.org/hook",
				"event":"OCP\\Files\\Events\\Node\\NodeCreatedEvent","eventFilter":{"user.uid":"bob"},
				"userIdFilter":"bob","headers":{"X-A":"1"},"authMethod":"header","authData":"3|enc",
				"tokenNeeded":{"user_ids":["bob"]}}`,
			want: nextcloud.Webhook{ID: 7, UserID: "admin", HTTPMethod: "PUT", URI: "https://example.org/hook",
				Event: `OCP\Files\Events\Node\NodeCreatedEvent`, EventFilter: map[string]any{"user.uid": "bob"},
				UserIDFilter: "bob", Headers: map[string]string{"X-A": "1"}, AuthMethod: "header", AuthData: "3|enc",
				TokenNeeded: json.RawMessage(`{"user_ids":["bob"]}`)},
		},
		{
			name: "empty PHP arrays",
			in:   `{"id":1,"headers":[],"eventFilter":[],"tokenNeeded":[]}`,
			want: nextcloud.Webhook{ID: 1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got nextcloud.Webhook
			if err := json.Unmarshal([]byte(tt.in), &got); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Unmarshal =\n %+v, want\n %+v", got, tt.want)
			}
		})
	}
}
